"""The model-backend contract: what generation the runner asks of a model, and what it gets.

A request is a conversation (closed turns) plus the open assistant turn to continue, with the
token ids of that turn where this backend generated them (invariant 3: backends continue from
token ids rather than re-tokenised text wherever they can). A request may carry ``stop_at``, a
boundary function such as ``segmenter.find_boundary``: the backend stops as soon as it returns a
position for the text generated so far, and returns everything generated, overshoot included.

Re-exported by ``llenvs.inference.protocol``; backends live in ``llenvs.inference``.

Example:
    >>> p = Prompt(messages=(Message("user", "2 + 2?"),), continuation="Let me see. ")
    >>> request = GenerationRequest(p, SamplingParams(max_tokens=64), max_tokens=16)
    >>> request.prompt.messages[-1].role, request.max_tokens
    ('user', 16)

"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Any, Literal, Protocol, runtime_checkable

from llenvs.core._record_types import RECORD, Flag, Int64, Number, Positive, Text
from llenvs.core._records import read_record, record_dict

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "BackendCapabilities",
    "BoundaryFn",
    "FinishReason",
    "Generation",
    "GenerationRequest",
    "LocalWeights",
    "Message",
    "ModelBackend",
    "Prompt",
    "Role",
    "SamplingParams",
    "ScoreFn",
    "TextScore",
]

Role = Literal["system", "user", "assistant"]
"""Who speaks a message."""

BoundaryFn = Callable[[str], int | None]
"""Given text, the end of its first segment once decided, else None (``find_boundary``)."""

DEFAULT_MAX_TOKENS = 256
"""A trajectory's token budget when none is given or recorded: ``SamplingParams``, the CLI's
``--max-tokens``, the workbench's panels and the analysis' rollouts all default to it."""


@dataclass(frozen=True)
class Message:
    """One closed turn of a conversation.

    Example:
        >>> Message("user", "hi").role
        'user'

    """

    __pydantic_config__ = RECORD

    role: Role
    """Who speaks."""
    content: Text
    """What is said."""

    def __post_init__(self) -> None:
        if self.role not in ("system", "user", "assistant"):
            raise ValueError(f"role must be system, user or assistant, got {self.role!r}")


@dataclass(frozen=True)
class SamplingParams:
    """How to sample. ``max_tokens`` is a budget for a whole trajectory, not for one call.

    Example:
        >>> SamplingParams(max_tokens=2048).temperature
        0.0
        >>> SamplingParams(max_tokens=0)
        Traceback (most recent call last):
        ...
        ValueError: max_tokens must be > 0, got 0

    """

    __pydantic_config__ = RECORD

    max_tokens: Positive = DEFAULT_MAX_TOKENS
    """Most tokens a trajectory may generate, over all its segments."""
    temperature: Number = 0.0
    """0 for greedy decoding."""
    top_p: Number = 1.0
    """Nucleus sampling mass (1.0 for none)."""
    top_k: Positive | None = None
    """Sample among the k most likely tokens (None for no limit)."""
    seed: Int64 | None = None
    """Seed of the sampler, where the backend honours one."""
    stop: tuple[Text, ...] = ()
    """Stop sequences; a matched stop sequence is kept at the end of the generated text."""
    logprobs: Flag = False
    """Ask for the log-probability of every generated token."""

    def __post_init__(self) -> None:
        if isinstance(self.max_tokens, bool) or not isinstance(self.max_tokens, int):
            raise TypeError(f"max_tokens must be an int, got {self.max_tokens!r}")
        if self.max_tokens <= 0:
            raise ValueError(f"max_tokens must be > 0, got {self.max_tokens}")
        if not (self.temperature >= 0 and math.isfinite(self.temperature)):
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")
        if self.top_k is not None and self.top_k <= 0:
            raise ValueError(f"top_k must be > 0 or None, got {self.top_k}")
        if isinstance(self.stop, str):  # type: ignore[unreachable]
            raise TypeError(f"stop must be a tuple of strings, got the string {self.stop!r}")
        if any(not s for s in self.stop):
            raise ValueError("stop sequences must be non-empty strings")

    def to_record(self) -> dict[str, Any]:
        """The JSON object of these parameters (a trace's ``run.spec.sampling``).

        Example:
            >>> SamplingParams(max_tokens=8, stop=("x",)).to_record()["stop"]
            ['x']

        """
        return record_dict(self)

    @classmethod
    def from_record(cls, obj: object, what: str = "sampling_params") -> SamplingParams:
        """The parameters of ``to_record``'s object, read by ``read_record``.

        Absent keys take the defaults; a key ``SamplingParams`` does not have is refused, naming
        the known ones.

        Example:
            >>> SamplingParams.from_record({"max_tokens": 9}).max_tokens
            9
            >>> SamplingParams.from_record({"max_token": 9})  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            llenvs.core.errors.RecordFormatError: sampling_params: unknown field(s): max_token: choose from max_tokens, temperature, ...

        """  # noqa: E501
        return read_record(cls, obj, what)


@dataclass(frozen=True)
class Prompt:
    """What to continue: closed turns, then the open assistant turn so far.

    Example:
        >>> Prompt((Message("user", "q"),)).continuation
        ''

    """

    messages: tuple[Message, ...]
    """The closed turns (system, user, and assistant turns closed by feedback)."""
    continuation: str = ""
    """Text of the open assistant turn so far (empty to start a new turn)."""
    continuation_token_ids: tuple[int, ...] | None = None
    """Token ids of ``continuation`` when this backend generated them; None to re-tokenise."""
    continuation_hint_ids: tuple[int, ...] | None = None
    """Token ids a model generated for the start of ``continuation`` (a replayed prefix), which
    may run past it; a backend with the same tokenizer continues from the longest run of them
    that spells a prefix of ``continuation`` instead of re-tokenising it. Ignored when
    ``continuation_token_ids`` is given."""

    def __post_init__(self) -> None:
        if not self.messages:
            raise ValueError("a prompt needs at least one message")


@dataclass(frozen=True)
class GenerationRequest:
    """One call's worth of generation for one trajectory.

    Example:
        >>> r = GenerationRequest(Prompt((Message("user", "q"),)), SamplingParams(), 8)
        >>> r.stop_at is None
        True

    """

    prompt: Prompt
    """What to continue."""
    params: SamplingParams
    """How to sample (``params.max_tokens`` is the trajectory budget; see ``max_tokens``)."""
    max_tokens: int
    """Most tokens this call may generate."""
    stop_at: BoundaryFn | None = None
    """Stop once this returns a position for the text generated in this call."""

    def __post_init__(self) -> None:
        if self.max_tokens <= 0:
            raise ValueError(f"max_tokens must be > 0, got {self.max_tokens}")


class FinishReason(Enum):
    """Why a generation call stopped.

    Example:
        >>> FinishReason.BOUNDARY.value
        'boundary'

    """

    STOP = "stop"
    """The model ended its turn, or a stop sequence was generated."""
    LENGTH = "length"
    """The call's ``max_tokens`` was reached."""
    BOUNDARY = "boundary"
    """``stop_at`` found a segment boundary (the text may run past it)."""


@dataclass(frozen=True)
class Generation:
    """The text one call produced, with its tokens.

    Example:
        >>> Generation("Four.", FinishReason.STOP, (19, 13)).token_ids
        (19, 13)

    """

    text: str
    """The generated text (overshoot past a boundary included)."""
    finish_reason: FinishReason
    """Why generation stopped."""
    token_ids: tuple[int, ...] = ()
    """Ids of the generated tokens, in this backend's vocabulary."""
    logprobs: tuple[float, ...] | None = None
    """Log-probability of each generated token, when asked for and available."""

    def __post_init__(self) -> None:
        if self.logprobs is not None and len(self.logprobs) != len(self.token_ids):
            raise ValueError(
                f"{len(self.logprobs)} logprobs for {len(self.token_ids)} tokens: one each"
            )


@dataclass(frozen=True)
class TextScore:
    """How likely a model finds a text after a prompt: each of its tokens' log-probability.

    Example:
        >>> s = TextScore((5, 6), (-0.5, -1.5))
        >>> s.total, s.mean
        (-2.0, -1.0)

    """

    token_ids: tuple[int, ...]
    """The tokens that spell the text (the first may start inside the prompt's continuation,
    when the text joins its last word)."""
    logprobs: tuple[float, ...]
    """Each token's log-probability given everything before it (teacher-forced)."""

    def __post_init__(self) -> None:
        if len(self.logprobs) != len(self.token_ids):
            raise ValueError(f"{len(self.logprobs)} logprobs for {len(self.token_ids)} tokens")

    @property
    def total(self) -> float:
        """The text's log-probability: the sum over its tokens."""
        return math.fsum(self.logprobs)

    @property
    def mean(self) -> float:
        """The mean log-probability per token (NaN for no tokens)."""
        return self.total / len(self.logprobs) if self.logprobs else math.nan


ScoreFn = Callable[[Sequence[tuple["Prompt", str]]], list[TextScore]]
"""Scores each ``(prompt, text)``: the text's tokens' log-probabilities after the prompt."""


@dataclass(frozen=True)
class LocalWeights:
    """A local model's weights, for instruments that read inside it (its attention, its logits).

    Only a backend that runs the model in this process has them (``llenvs.inference``'s
    transformers backend, the embedded model included); a served model does not.
    """

    model: Any
    """The causal LM (a transformers ``PreTrainedModel``, a torch module)."""
    tokenizer: Any
    """Its tokenizer (a transformers fast tokenizer: offsets map tokens to characters)."""
    render: Callable[[Sequence[Message]], list[int]]
    """Token ids of a conversation through the chat template, with an open assistant turn, as
    the backend renders a prompt."""
    turn: Callable[[], AbstractContextManager[None]]
    """Holds the model for one pass: nothing else runs on it until the block ends."""


@dataclass(frozen=True)
class BackendCapabilities:
    """What a backend offers beyond ``generate``; each field's default means "not offered".

    Every backend declares one as its ``capabilities`` (``ModelBackend``): code that needs an
    optional ability reads it there, never by probing the backend for attributes. A backend
    that offers nothing optional says ``capabilities = BackendCapabilities()``; a wrapper
    forwards the capabilities of the backend it wraps.

    Example:
        >>> none = BackendCapabilities()
        >>> none.max_in_flight, none.chat_template, dict(none.rebuild_options), none.tokenizer()
        (None, None, {}, None)
        >>> BackendCapabilities(max_in_flight=0)
        Traceback (most recent call last):
        ...
        ValueError: max_in_flight must be an int >= 1 or None, got 0

    """

    max_in_flight: int | None = None
    """How many calls it serves at once, each on its own thread (a server); None: one call
    takes every waiting request, as one batch (a local model)."""
    chat_template: str | None = None
    """The chat template its prompts are rendered with (recorded in traces); None if unknown."""
    rebuild_options: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """What ``get_backend(name, **rebuild_options)`` needs to reach the same model again (an
    openai server's URL, mode, tokenizer and key variable, never a key; a local model's
    ``dtype``, the precision it runs in)."""
    load_tokenizer: Callable[[], Any] | None = None
    """Returns the tokenizer whose ids ``generate`` hands back (loaded on first call, so a
    server's is fetched only when asked for); None when its ids are no tokenizer's."""
    score: ScoreFn | None = None
    """Teacher-forced log-probabilities of texts after prompts, one prefill each
    (``TextScore``); None when the backend cannot give them."""
    weights: Callable[[], LocalWeights] | None = None
    """The model's weights in this process (``LocalWeights``), for white-box instruments; None
    for a backend that has none here (a served model, canned responses)."""

    def __post_init__(self) -> None:
        workers = self.max_in_flight
        if workers is not None and (
            isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
        ):
            raise ValueError(f"max_in_flight must be an int >= 1 or None, got {workers!r}")
        object.__setattr__(self, "rebuild_options", MappingProxyType(dict(self.rebuild_options)))

    def tokenizer(self) -> Any:
        """The tokenizer its token ids are in (loading it), or None when it declares none.

        Example:
            >>> BackendCapabilities(load_tokenizer=lambda: "the tokenizer").tokenizer()
            'the tokenizer'

        """
        return None if self.load_tokenizer is None else self.load_tokenizer()


@runtime_checkable
class ModelBackend(Protocol):
    """Generates text for a batch of requests, and declares what else it offers.

    Optional abilities (concurrent calls, chat template, rebuild options, tokenizer) are not
    attributes to probe for: each backend declares them in ``capabilities``.

    Example:
        >>> isinstance(get_backend("scripted", outputs=["Four."]), ModelBackend)
        True

    """

    @property
    def name(self) -> str:
        """What generates: ``"scripted"``, ``"transformers/<model>"``, ``"openai/<model>"``."""
        ...

    @property
    def capabilities(self) -> BackendCapabilities:
        """What it offers beyond ``generate`` (``BackendCapabilities()``: nothing optional)."""
        ...

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Generation]:
        """One generation per request, in order; requests may be served together."""
        ...
