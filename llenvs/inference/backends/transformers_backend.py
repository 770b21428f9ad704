"""The transformers backend: a local causal LM that keeps each trajectory's KV cache between calls.

``get_backend("transformers")`` is the embedded SmolLM2-135M-Instruct (see ``embedded_model``);
``get_backend("transformers/<folder or hub id>")`` any causal LM transformers can load offline.

Each request's token ids are the chat template of its closed turns with an open assistant turn,
then the continuation: its ``continuation_token_ids`` when given, else its text, re-using the
tokens a stored session generated for the longest token-aligned prefix of that text and encoding
only the rest (so after ``ForceAction`` the cache rolls back to the segment boundary, a token
that straddles it dropped and the tail re-encoded). The longest-prefix session (``kv_sessions``)
is cropped to the shared prefix and only the rest is fed: segments cost what one call costs, and
greedy segmented output at batch size 1 is byte-identical to one-shot output (invariant 3).

Decoding is token by token: after each token the text generated in this call is checked for a
stop sequence (kept, text cut after it), then ``stop_at`` (``BOUNDARY``, overshoot kept); the
end-of-turn token gives ``STOP`` (it is not returned), ``max_tokens`` gives ``LENGTH``.
Several requests are decoded together: each is matched to its session as above, the sessions
are cropped so that every row feeds the same number of tokens, their caches are stacked with left
padding (an attention mask hides it; each row keeps its own positions) and split back into the
sessions as rows finish. A padded batch computes the same sums in other shapes, so it may differ
from batch size 1 near ties (``bench/generation.py`` measures how often); a session touched by a
batch is never used to start a new trajectory at batch size 1, which is prefilled afresh.

Example:
    >>> from llenvs.core.backend import GenerationRequest, Message, Prompt, SamplingParams
    >>> backend = get_embedded_backend()
    >>> prompt = Prompt((Message("user", "What is 2 + 2? Answer with a number."),))
    >>> request = GenerationRequest(prompt, SamplingParams(max_tokens=8), max_tokens=8)
    >>> backend.generate([request])[0].text
    'The answer is 4.'

"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

import torch

from llenvs.core.backend import FinishReason, Generation, GenerationRequest, Message, Prompt
from llenvs.core.errors import BackendError
from llenvs.inference.backends.batched_cache import (
    crop_cache,
    row_cache,
    stack_caches,
    stackable,
)
from llenvs.inference.backends.embedded_model import EMBEDDED_MODEL_NAME, embedded_model_path
from llenvs.inference.backends.kv_sessions import KVSession, KVSessionStore
from llenvs.inference.backends.sampling import choose_tokens, new_generator, token_logprobs
from llenvs.inference.backends.text_decoding import TextDecoder, stop_end
from llenvs.inference.generate_until import GenerateUntil

__all__ = ["DType", "TransformersBackend", "get_embedded_backend", "make_backend"]

DType = Literal["float32", "bfloat16", "float16"]
"""Weights' precision. Default: bfloat16 (2.4x faster than float32 for SmolLM2 on 2 CPU cores:
12 vs 5 tokens/s; the decode is memory-bound), float32 on a GPU without bfloat16."""


@dataclass(eq=False)
class _Row:
    """One request in flight (internal)."""

    request: GenerationRequest
    ids: list[int]
    session: KVSession
    keep: int
    """Cached positions of ``session`` kept; ``ids[keep:]`` are fed."""
    decoder: TextDecoder
    tokens: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    text: str = ""
    reason: FinishReason | None = None


class TransformersBackend(GenerateUntil):
    """A causal LM with its tokenizer, generating from token ids with per-trajectory KV caches.

    Arguments:
        model: a transformers causal LM (in eval mode, on its device).
        tokenizer: its tokenizer (with a chat template, else turns are joined by blank lines).
        name: ``"transformers/<model>"``.
        max_sessions: KV-cache sessions kept (LRU); at least the batch size you run.

    Example:
        >>> backend = get_embedded_backend()
        >>> backend.name, backend.tokenizer.eos_token
        ('transformers/SmolLM2-135M-Instruct', '<|im_end|>')

    """

    def __init__(self, model: Any, tokenizer: Any, *, name: str, max_sessions: int = 32) -> None:
        self.model = model
        self._tokenizer = tokenizer
        self.name = name
        self.sessions = KVSessionStore(max_sessions)
        self.device = next(model.parameters()).device
        ends = getattr(model.generation_config, "eos_token_id", None)
        ends = [ends] if isinstance(ends, int) else list(ends or [])
        if tokenizer.eos_token_id is not None:
            ends.append(tokenizer.eos_token_id)
        self.end_ids = frozenset(ends)
        """Token ids that end the assistant turn (not returned)."""

    @property
    def tokenizer(self) -> Any:
        """The tokenizer the model generates with (a ``TokenSegmenter`` on it cuts its tokens)."""
        return self._tokenizer

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` (special-token text included, no BOS added).

        Example:
            >>> get_embedded_backend().encode("Hi there")
            [26843, 665]

        """
        return list(self._tokenizer(text, add_special_tokens=False)["input_ids"]) if text else []

    def render(self, messages: Sequence[Message]) -> list[int]:
        r"""Token ids of ``messages`` through the chat template, with an open assistant turn.

        Example:
            >>> from llenvs.core.backend import Message
            >>> backend = get_embedded_backend()
            >>> backend.tokenizer.decode(backend.render([Message("user", "Hi")]))[-22:]
            '<|im_start|>assistant\n'

        """
        if getattr(self._tokenizer, "chat_template", None):
            turns = [{"role": m.role, "content": m.content} for m in messages]
            text = self._tokenizer.apply_chat_template(
                turns, add_generation_prompt=True, tokenize=False
            )
        else:
            text = "".join(f"{m.content}\n\n" for m in messages)
        return self.encode(str(text))

    def prompt_ids(self, prompt: Prompt) -> list[int]:
        """The token ids a request continues (see the module docstring)."""
        head = self.render(prompt.messages)
        if prompt.continuation_token_ids is not None:
            return head + list(prompt.continuation_token_ids)
        text = prompt.continuation
        reused, covered = self._reusable_tokens(head, text)
        return head + reused + self.encode(text[covered:])

    def _reusable_tokens(self, head: list[int], text: str) -> tuple[list[int], int]:
        """The longest run of a session's tokens after ``head`` that spells a prefix of ``text``.

        Returns the tokens and the length of text they spell; a token that ends inside a
        character never counts.
        """
        best: tuple[list[int], int] = ([], 0)
        if not text:
            return best
        for session in self.sessions.sessions_with_head(head):
            generated = session.tokens[len(head) :]
            decoder = TextDecoder(self._tokenizer, head)
            low, high = 0, len(generated)  # largest count whose text is a prefix of ``text``
            while low < high:
                middle = (low + high + 1) // 2
                if text.startswith(decoder.text(generated[:middle])):
                    low = middle
                else:
                    high = middle - 1
            for count in range(low, 0, -1):
                spelled = decoder.text(generated[:count], final=True)
                if text.startswith(spelled):
                    if len(spelled) > best[1]:
                        best = (generated[:count], len(spelled))
                    break
            if best[1] == len(text):
                break
        return best

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Generation]:
        """One generation per request; several requests are decoded together as one batch."""
        if not requests:
            return []
        with torch.inference_mode():
            rows = self._prepare(requests)
            logits = self._first_logits(rows)
            active = list(range(len(rows)))
            batch = _Batch.from_rows(self, rows) if len(rows) > 1 else None
            if batch is not None:
                logits = batch.forward([r.ids[k:] for r, k in zip(rows, batch.keeps, strict=True)])
            while True:
                still = []
                chosen = self._choose(rows, active, logits)
                for position, index in enumerate(active):
                    if not self._append(rows[index], chosen[position], logits[position]):
                        still.append(position)
                    elif batch is not None:
                        batch.release(rows[index], position)
                if not still:
                    break
                active = [active[p] for p in still]
                if batch is not None:
                    batch.select(still)
                    logits = batch.forward([[rows[i].tokens[-1]] for i in active])
                else:
                    logits = self._forward(rows[0].session.cache, [rows[0].tokens[-1]])
        return [self._finish(row) for row in rows]

    def _prepare(self, requests: Sequence[GenerationRequest]) -> list[_Row]:
        """Match each request to a session (a new one when none fits or it is claimed)."""
        rows: list[_Row] = []
        claimed: set[int] = set()
        for request in requests:
            ids = self.prompt_ids(request.prompt)
            session, shared = self.sessions.match(ids, frozenset(claimed))
            if (
                session is not None
                and len(requests) == 1
                and not session.exact
                and shared <= session.prompt_length
            ):
                session = None  # a new trajectory at batch size 1 is prefilled exactly
            if session is None:
                session = self.sessions.add(KVSession([], None, prompt_length=len(ids)))
                keep = 0
            elif (
                shared == len(ids) == session.prompt_length
                and len(requests) == 1
                and session.prompt_logits is not None
            ):
                keep = shared  # the same first prompt again: its logits are stored
            else:
                keep = min(shared, len(ids) - 1)
            claimed.add(id(session))
            session.exact = session.exact and len(requests) == 1
            if request.params.temperature > 0 and (
                session.generator is None
                or (keep <= session.prompt_length and request.params.seed is not None)
            ):
                session.generator = new_generator(request.params.seed, self.device)
            decoder = TextDecoder(self._tokenizer, ids)
            rows.append(_Row(request, ids, session, keep, decoder))
        return rows

    def _first_logits(self, rows: list[_Row]) -> torch.Tensor:
        """Batch size 1: crop the session and feed the rest (or reuse the prompt's logits)."""
        if len(rows) > 1:
            return torch.empty(0)
        row = rows[0]
        session = row.session
        if session.cache is None:
            session.cache = _new_cache(self.model)
        crop_cache(session.cache, row.keep)
        session.ids, session.pending = row.ids[: row.keep], []
        if row.keep == len(row.ids):
            return torch.as_tensor(session.prompt_logits).unsqueeze(0)
        logits = self._forward(session.cache, row.ids[row.keep :])
        session.ids = list(row.ids)
        if row.keep == 0:
            session.prompt_logits = logits[0].clone()
        return logits

    def _forward(self, cache: Any, ids: list[int]) -> torch.Tensor:
        """Next-token logits after feeding ``ids`` to a batch-of-one ``cache``."""
        tensor = torch.tensor([ids], device=self.device)
        output = self.model(input_ids=tensor, cache=cache, use_cache=True, logits_to_keep=1)
        logits: torch.Tensor = output.logits[:, -1, :]
        return logits

    def _choose(self, rows: list[_Row], active: list[int], logits: torch.Tensor) -> list[int]:
        return [
            choose_tokens(logits[p : p + 1], rows[i].request.params, [rows[i].session.generator])[0]
            for p, i in enumerate(active)
        ]

    def _append(self, row: _Row, token: int, logits: torch.Tensor) -> bool:
        """Add one token to a row; True when the row is finished."""
        request = row.request
        row.session.pending = [token]
        if token in self.end_ids:
            row.session.ids = row.ids + row.tokens
            row.text = row.decoder.text(row.tokens, final=True)
            row.reason = FinishReason.STOP
            return True
        row.tokens.append(token)
        if request.params.logprobs:
            row.logprobs.extend(token_logprobs(logits.unsqueeze(0), [token]))
        row.session.ids = row.ids + row.tokens[:-1]
        row.text = row.decoder.text(row.tokens)
        end = stop_end(request.prompt.continuation, row.text, request.params.stop)
        if end is not None:
            row.text, row.reason = row.text[:end], FinishReason.STOP
        elif request.stop_at is not None and request.stop_at(row.text) is not None:
            row.reason = FinishReason.BOUNDARY
        elif len(row.tokens) >= request.max_tokens:
            row.reason = FinishReason.LENGTH
        return row.reason is not None

    def _finish(self, row: _Row) -> Generation:
        logprobs = tuple(row.logprobs) if row.request.params.logprobs else None
        reason = row.reason or FinishReason.LENGTH
        return Generation(row.text, reason, tuple(row.tokens), logprobs)


class _Batch:
    """Several rows decoded together: stacked, left-padded caches (internal)."""

    def __init__(self, backend: TransformersBackend, rows: list[_Row], keeps: list[int]) -> None:
        self.backend = backend
        self.rows = rows
        self.keeps = keeps
        width = max(len(r.ids) - k for r, k in zip(rows, keeps, strict=True))
        cached = max(keeps)
        self.padding = [cached + width - len(r.ids) for r in rows]
        caches = [r.session.cache if k > 0 else None for r, k in zip(rows, keeps, strict=True)]
        self.cache = stack_caches(caches, keeps, pad_to=cached)
        self.mask = torch.ones((len(rows), cached + width), dtype=torch.long)
        for index, pad in enumerate(self.padding):
            self.mask[index, :pad] = 0
        self.mask = self.mask.to(backend.device)
        self.lengths = [k for k in keeps]  # real positions per row so far

    @classmethod
    def from_rows(cls, backend: TransformersBackend, rows: list[_Row]) -> _Batch:
        """Crop every row's session so that all rows feed the same number of tokens."""
        width = max(len(r.ids) - r.keep for r in rows)
        reuse = all(r.keep == 0 or stackable(r.session.cache) for r in rows)
        keeps = []
        for row in rows:
            session = row.session
            keep = max(0, len(row.ids) - width) if reuse and row.keep > 0 else 0
            if session.cache is not None:
                crop_cache(session.cache, keep)
            keeps.append(keep)
            session.ids, session.pending = row.ids[:keep], []
        return cls(backend, rows, keeps)

    def forward(self, feeds: list[list[int]]) -> torch.Tensor:
        """Feed each row its tokens (left-padded to the longest); next-token logits per row."""
        width = max(len(f) for f in feeds)
        device = self.backend.device
        ids = torch.zeros((len(feeds), width), dtype=torch.long)
        positions = torch.zeros((len(feeds), width), dtype=torch.long)
        for index, feed in enumerate(feeds):
            start = width - len(feed)
            ids[index, start:] = torch.tensor(feed)
            base = self.lengths[index]
            positions[index, start:] = torch.arange(base, base + len(feed))
            self.lengths[index] += len(feed)
        if self.mask.shape[1] < self.cache.get_seq_length() + width:
            extra = torch.ones((len(feeds), width), dtype=torch.long, device=device)
            self.mask = torch.cat([self.mask, extra], dim=1)
        output = self.backend.model(
            input_ids=ids.to(device),
            attention_mask=self.mask,
            position_ids=positions.to(device),
            cache=self.cache,
            use_cache=True,
            logits_to_keep=1,
        )
        logits: torch.Tensor = output.logits[:, -1, :]
        for index, row in enumerate(self.rows):
            if row.session.prompt_logits is None and not row.session.ids:
                row.session.prompt_logits = logits[index].clone()
            if len(row.session.ids) < len(row.ids):
                row.session.ids = list(row.ids)
        return logits

    def release(self, row: _Row, position: int) -> None:
        """A finished row takes its own cache back into its session."""
        row.session.cache = row_cache(self.cache, position, self.padding[position])

    def select(self, positions: list[int]) -> None:
        """Keep only the rows at ``positions`` (the others finished)."""
        index = torch.tensor(positions, device=self.backend.device)
        layers: list[Any] = list(self.cache.layers)
        for layer in layers:
            layer.keys = layer.keys[index]
            layer.values = layer.values[index]
        self.mask = self.mask[index]
        self.rows = [self.rows[p] for p in positions]
        self.padding = [self.padding[p] for p in positions]
        self.lengths = [self.lengths[p] for p in positions]


def _new_cache(model: Any) -> Any:
    from transformers import DynamicCache

    return DynamicCache(config=model.config)


def _torch_dtype(dtype: DType | None, device: torch.device) -> torch.dtype:
    if dtype is None:
        if device.type == "cuda" and not torch.cuda.is_bf16_supported():
            return torch.float32
        return torch.bfloat16
    choices = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
    if dtype not in choices:
        raise ValueError(f"dtype must be one of {', '.join(choices)}, got {dtype!r}")
    return choices[dtype]


def load_backend(
    path: str | Path,
    *,
    name: str,
    dtype: DType | None = None,
    device: str | None = None,
    max_sessions: int = 32,
) -> TransformersBackend:
    """Load a causal LM and its tokenizer from a folder (or a hub id already cached).

    Example:
        >>> load_backend("/no/such/model", name="transformers/x")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.core.errors.BackendError: no model folder at /no/such/model (a local folder ...)

    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    where = str(path)
    looks_local = where.startswith((".", "/", "~")) or Path(where).expanduser().exists()
    if looks_local:
        where = str(Path(where).expanduser())
        if not (Path(where) / "config.json").is_file():
            raise BackendError(
                f"no model folder at {where} (a local folder with config.json, or a hub id "
                "already in the local cache)"
            )
    target = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    try:
        tokenizer = AutoTokenizer.from_pretrained(where)
        model: Any = AutoModelForCausalLM.from_pretrained(where, dtype=_torch_dtype(dtype, target))
    except OSError as err:
        raise BackendError(f"cannot load the model {where!r} offline: {err}") from err
    model = model.to(target).eval()
    return TransformersBackend(model, tokenizer, name=name, max_sessions=max_sessions)


def make_backend(
    model: str | None = None,
    *,
    dtype: DType | None = None,
    device: str | None = None,
    max_sessions: int = 32,
    progress: bool = True,
) -> TransformersBackend:
    """The registry's factory: ``get_backend("transformers")`` or ``"transformers/<model>"``.

    Without a model name, or with the embedded model's own name (as a trace records it:
    ``"transformers/SmolLM2-135M-Instruct"``): the embedded SmolLM2-135M-Instruct (converted
    once, then cached).

    Example:
        >>> make_backend(dtype="float64")
        Traceback (most recent call last):
        ...
        ValueError: dtype must be one of float32, bfloat16, float16, got 'float64'

    """
    if model is None or (model == EMBEDDED_MODEL_NAME and not Path(model).exists()):
        target = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        _torch_dtype(dtype, target)  # a bad dtype fails before a conversion
        path: str | Path = embedded_model_path(progress=progress)
        name = f"transformers/{EMBEDDED_MODEL_NAME}"
    else:
        path, name = model, f"transformers/{model}"
    return load_backend(path, name=name, dtype=dtype, device=device, max_sessions=max_sessions)


@cache
def get_embedded_backend() -> TransformersBackend:
    """The embedded model's backend, loaded once per process (for doctests and tests).

    Example:
        >>> get_embedded_backend() is get_embedded_backend()
        True

    """
    return make_backend(progress=False)
