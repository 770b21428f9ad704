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
from functools import cache
from pathlib import Path
from typing import Any, Literal

import torch

from llenvs.core.backend import FinishReason, Generation, GenerationRequest, Message, Prompt
from llenvs.core.errors import BackendError
from llenvs.inference.backends.batched_cache import (
    crop_cache,
)
from llenvs.inference.backends.embedded_model import EMBEDDED_MODEL_NAME, embedded_model_path
from llenvs.inference.backends.kv_sessions import KVSession, KVSessionStore
from llenvs.inference.backends.padded_batch import PaddedBatch, Row
from llenvs.inference.backends.sampling import choose_tokens, new_generator, token_logprobs
from llenvs.inference.backends.text_decoding import TextDecoder, stop_end
from llenvs.inference.generate_until import GenerateUntil

__all__ = [
    "DType",
    "TransformersBackend",
    "default_dtype",
    "get_embedded_backend",
    "load_backend",
    "make_backend",
]

DType = Literal["float32", "bfloat16", "float16"]
"""Weights' precision. Default (``default_dtype``): bfloat16 on a GPU that supports it and on a
CPU with native bfloat16 (``avx512_bf16``/``amx_bf16``), float32 elsewhere. Measured for SmolLM2
on 2 AVX2 cores (no native bfloat16), 250-token prompts: bfloat16 decodes slightly faster at batch
size 1 (18.6 vs 14.3 tokens/s) but prefills 4x slower (3.1 vs 0.8 s) and decodes 16 rows at 40
vs 101 tokens/s, so float32 is the faster choice there."""


class TransformersBackend(GenerateUntil):
    """A causal LM with its tokenizer, generating from token ids with per-trajectory KV caches.

    Arguments:
        model: a transformers causal LM (in eval mode, on its device).
        tokenizer: its tokenizer (with a chat template, else turns are joined by blank lines).
        name: ``"transformers/<model>"``.
        max_sessions: KV-cache sessions kept (LRU); the store grows to twice the largest batch
            it serves, so a batch's trajectories keep their caches between rounds.

    Example:
        >>> backend = get_embedded_backend()
        >>> backend.name, backend.tokenizer.eos_token
        ('transformers/SmolLM2-135M-Instruct', '<|im_end|>')

    """

    def __init__(self, model: Any, tokenizer: Any, *, name: str, max_sessions: int = 8) -> None:
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
            batch = PaddedBatch.from_rows(self.model, rows) if len(rows) > 1 else None
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

    def _prepare(self, requests: Sequence[GenerationRequest]) -> list[Row]:
        """Match each request to a session (a new one when none fits or it is claimed)."""
        rows: list[Row] = []
        self.sessions.capacity = max(self.sessions.capacity, 2 * len(requests))
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
            rows.append(Row(request, ids, session, keep, decoder))
        return rows

    def _first_logits(self, rows: list[Row]) -> torch.Tensor:
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

    def _choose(self, rows: list[Row], active: list[int], logits: torch.Tensor) -> list[int]:
        return [
            choose_tokens(logits[p : p + 1], rows[i].request.params, [rows[i].session.generator])[0]
            for p, i in enumerate(active)
        ]

    def _append(self, row: Row, token: int, logits: torch.Tensor) -> bool:
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

    def _finish(self, row: Row) -> Generation:
        logprobs = tuple(row.logprobs) if row.request.params.logprobs else None
        reason = row.reason or FinishReason.LENGTH
        return Generation(row.text, reason, tuple(row.tokens), logprobs)


def _new_cache(model: Any) -> Any:
    from transformers import DynamicCache

    return DynamicCache(config=model.config)


def default_dtype(device: torch.device) -> torch.dtype:
    """The faster precision on ``device`` (see ``DType``).

    Example:
        >>> import torch
        >>> default_dtype(torch.device("cpu")) in (torch.float32, torch.bfloat16)
        True

    """
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float32
    try:
        flags = Path("/proc/cpuinfo").read_text(encoding="utf-8").split()
    except OSError:
        return torch.float32
    native = "avx512_bf16" in flags or "amx_bf16" in flags
    return torch.bfloat16 if native else torch.float32


def _torch_dtype(dtype: DType | None, device: torch.device) -> torch.dtype:
    if dtype is None:
        return default_dtype(device)
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
    max_sessions: int = 8,
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
    max_sessions: int = 8,
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
