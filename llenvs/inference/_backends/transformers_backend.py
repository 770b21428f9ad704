"""The transformers backend: a local causal LM that keeps each trajectory's KV cache between calls.

``get_backend("transformers")`` is the embedded SmolLM2-135M-Instruct (see ``embedded_model``);
``get_backend("transformers/<folder or hub id>")`` any causal LM transformers can load offline.
How requests, sessions, batches and threads work: ``docs/architecture.md``.

Example:
    >>> from llenvs.core._backend import GenerationRequest, Message, Prompt, SamplingParams
    >>> from llenvs.inference._backends.transformers_loading import get_embedded_backend
    >>> backend = get_embedded_backend()
    >>> prompt = Prompt((Message("user", "What is 2 + 2? Answer with a number."),))
    >>> request = GenerationRequest(prompt, SamplingParams(max_tokens=8), max_tokens=8)
    >>> "4" in backend.generate([request])[0].text  # the exact words vary by release
    True

"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import torch

from llenvs.core import (
    BackendCapabilities,
    FinishReason,
    Generation,
    GenerationRequest,
    LocalWeights,
    Message,
    Prompt,
    TextScore,
)
from llenvs.inference._backends.batched_cache import crop_cache
from llenvs.inference._backends.chat_tokenizer import ChatTokenizer
from llenvs.inference._backends.kv_sessions import KVSession, KVSessionStore, common_prefix_length
from llenvs.inference._backends.padded_batch import PaddedBatch, Row
from llenvs.inference._backends.prompt_plan import plan_prompt
from llenvs.inference._backends.sampling import choose_tokens, new_generator, token_logprobs
from llenvs.inference._backends.text_decoding import TextDecoder, ending
from llenvs.inference._backends.text_positions import text_positions
from llenvs.inference._backends.token_healing import TokenHealer
from llenvs.inference._backends.turn_lock import TurnLock
from llenvs.inference._generate_until import GenerateUntil

__all__ = ["TransformersBackend"]


class TransformersBackend(GenerateUntil):
    """A causal LM with its tokenizer, generating from token ids with per-trajectory KV caches.

    Arguments:
        model: a transformers causal LM (in eval mode, on its device).
        tokenizer: its tokenizer (with a chat template, else turns are joined by blank lines).
        name: ``"transformers/<model>"``.
        max_sessions: KV-cache sessions kept (LRU); during a batch the store holds twice the
            batch's size, so its trajectories keep their caches between rounds.
        session_limit: the most sessions ever kept, whatever the batch size.
        fork_prefixes: in a batch, feed requests with the same (or nested) token ids once and
            give each a copy of that cache, cut to its length (False: each is fed, as
            ``bench/prefix_fork.py`` compares).

    One backend can be shared by threads (the workbench shares one model between browser
    sessions): calls take turns step by step (see the module), each with its own sessions,
    and each thread's ``generate_until`` continues its own conversation.

    Example:
        >>> from llenvs.inference._backends.transformers_loading import get_embedded_backend
        >>> backend = get_embedded_backend()
        >>> backend.name, backend.tokenizer.eos_token
        ('transformers/SmolLM2-135M-Instruct', '<|im_end|>')

    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        name: str,
        max_sessions: int = 8,
        session_limit: int = 64,
        fork_prefixes: bool = True,
    ) -> None:
        if not 0 < max_sessions <= session_limit:
            raise ValueError(
                f"need 0 < max_sessions <= session_limit, got {max_sessions} and {session_limit}"
            )
        self.model = model
        self._tokenizer = tokenizer
        self.name = name
        self.sessions = KVSessionStore(max_sessions)
        self.max_sessions = max_sessions
        """Sessions kept between calls at batch size 1."""
        self.session_limit = session_limit
        """Most sessions ever kept: a batch keeps two per row, up to this bound."""
        self.fork_prefixes = fork_prefixes
        """Whether a batch's requests with the same (or nested) token ids are prefilled once."""
        self._steps = TurnLock()
        self.device = next(model.parameters()).device
        ends = getattr(model.generation_config, "eos_token_id", None)
        ends = [ends] if isinstance(ends, int) else list(ends or [])
        if tokenizer.eos_token_id is not None:
            ends.append(tokenizer.eos_token_id)
        self.end_ids = frozenset(ends)
        """Token ids that end the assistant turn (not returned)."""
        self._healer: TokenHealer | None = None
        self._chat = ChatTokenizer(tokenizer)
        template = getattr(tokenizer, "chat_template", None)
        precision = str(next(model.parameters()).dtype).removeprefix("torch.")
        self.capabilities = BackendCapabilities(
            chat_template=template if isinstance(template, str) and template else None,
            rebuild_options={"dtype": precision},
            load_tokenizer=lambda: self._tokenizer,
            score=self.score,
            weights=lambda: LocalWeights(
                self.model, self._tokenizer, self.render, self._whole_turn
            ),
        )
        """Its chat template, the precision its weights run in (recorded in traces, so a run is
        made again in it), tokenizer and teacher-forced scores; one call serves a batch (no
        ``max_in_flight``)."""

    @property
    def tokenizer(self) -> Any:
        """The tokenizer the model generates with (a ``TokenSegmenter`` on it cuts its tokens)."""
        return self._tokenizer

    @contextlib.contextmanager
    def _whole_turn(self) -> Iterator[None]:
        """The model held for one pass of an instrument, as a call and its turn hold it."""
        with self._steps.call(), self._steps.turn():
            yield

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` (special-token text included, no BOS added).

        Example:
            >>> from llenvs.inference._backends.transformers_loading import get_embedded_backend
            >>> get_embedded_backend().encode("Hi there")
            [26843, 665]

        """
        return self._chat.encode(text)

    def render(self, messages: Sequence[Message]) -> list[int]:
        """Token ids of ``messages`` through the chat template, with an open assistant turn.

        ``ChatTokenizer.render``: the one rendering, which an HTTP backend uses too.
        """
        return self._chat.render(messages)

    def prompt_ids(self, prompt: Prompt) -> list[int]:
        """The token ids a request continues (see the module docstring).

        When a known token runs across the end of the text, the ids stop before it and the
        rest of the text is healed (``token_healing``): ``prompt_plan`` says which text.
        """
        return self.prompt_plan(prompt)[0]

    def prompt_plan(self, prompt: Prompt, call: object = None) -> tuple[list[int], str, range]:
        """The token ids a request continues, the text its first tokens must spell, and where.

        ``plan_prompt`` with this backend's sessions: the third item is the positions of
        ``ids`` that hold tokens a model generated (reused from a session or the hint), and
        ``call`` the call planning it (only its own and unclaimed sessions lend tokens).

        Example:
            >>> from llenvs.core._backend import Message, Prompt
            >>> from llenvs.inference._backends.transformers_loading import get_embedded_backend
            >>> backend = get_embedded_backend()
            >>> question = (Message("user", "Count."),)
            >>> ids = tuple(backend.encode("One. Two"))  # "One", ".", " Two"
            >>> plan = backend.prompt_plan(Prompt(question, "One. ", continuation_hint_ids=ids))
            >>> backend.tokenizer.decode(plan[0][-2:]), plan[1], len(plan[2])
            ('One.', ' ', 2)

        """
        return plan_prompt(self._chat, self.sessions, self._steps, prompt, call)

    def score(self, items: Sequence[tuple[Prompt, str]]) -> list[TextScore]:
        """The log-probability of each text after its prompt, token by token (one prefill each).

        The prompt's continuation and the text are tokenised together, as the model would read
        them; the text's tokens are those that end inside it (``text_positions``).

        Example:
            >>> from llenvs.core._backend import Message, Prompt
            >>> from llenvs.inference._backends.transformers_loading import get_embedded_backend
            >>> backend = get_embedded_backend()
            >>> prompt = Prompt((Message("user", "Count to three."),), "One, two,")
            >>> right, wrong = backend.score([(prompt, " three."), (prompt, " purple.")])
            >>> len(right.token_ids), right.mean > wrong.mean
            (2, True)

        """
        scores = []
        cache = _new_cache(self.model)  # the prefix the items share is fed once
        cached: list[int] = []
        with torch.inference_mode(), self._steps.call(weight=len(items)):
            for prompt, text in items:
                head = self.render(prompt.messages)
                ids, at = text_positions(self._tokenizer, head, prompt.continuation, text)
                # feed from the one before the text
                keep = min(common_prefix_length(cached, ids), at - 1)
                with self._steps.turn():
                    crop_cache(cache, keep)
                    tensor = torch.tensor([ids[keep:]], device=self.device)
                    logits = self.model(input_ids=tensor, cache=cache, use_cache=True).logits[0]
                cached = ids
                chosen = ids[at:]
                rows = torch.log_softmax(logits[at - 1 - keep : len(ids) - 1 - keep].float(), -1)
                picked = rows[torch.arange(len(chosen)), torch.tensor(chosen, device=rows.device)]
                scores.append(TextScore(tuple(chosen), tuple(float(v) for v in picked.tolist())))
        return scores

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Generation]:
        """One generation per request; several requests are decoded together as one batch."""
        if not requests:
            return []
        call = object()  # this call's claim on its sessions
        with torch.inference_mode(), self._steps.call(weight=len(requests)):
            try:
                with self._steps.turn():
                    rows = self._prepare(requests, call)
                self._decode(rows)
            except BaseException:  # a session caught mid-batch holds ids its cache lacks
                with self._steps.turn():
                    for session in self.sessions.claimed_by(call):
                        self.sessions.discard(session)
                raise
            finally:
                with self._steps.turn():
                    self.sessions.release(call)
        return [self._finish(row) for row in rows]

    def _decode(self, rows: list[Row]) -> None:
        """Generate every row's tokens (until each finishes), keeping the sessions up to date.

        The backend's lock is taken per step (the prefill, then each token of every row) and
        let go between steps, so other calls take their steps in between.
        """
        active, batch = list(range(len(rows))), None
        with self._steps.turn():
            if len(rows) > 1:
                batch, logits = PaddedBatch.prefill(self.model, rows, fork=self.fork_prefixes)
            else:
                logits = self._first_logits(rows[0])
        while active:
            with self._steps.turn():
                active, logits = self._step(rows, active, logits, batch)

    def _step(
        self, rows: list[Row], active: list[int], logits: torch.Tensor, batch: PaddedBatch | None
    ) -> tuple[list[int], torch.Tensor]:
        """Choose and append each active row's token; feed the rows still going.

        Returns the rows still going and their next-token logits.
        """
        still = []
        chosen = self._choose(rows, active, logits)
        for position, index in enumerate(active):
            if not self._append(rows[index], chosen[position], logits[position]):
                still.append(position)
            elif batch is not None:
                batch.release(rows[index], position)
        if not still:
            return [], logits
        active = [active[p] for p in still]
        if batch is not None:
            batch.select(still)
            return active, batch.forward([[rows[i].tokens[-1]] for i in active])
        return active, self._forward(rows[0].session.cache, [rows[0].tokens[-1]])

    def _prepare(self, requests: Sequence[GenerationRequest], call: object) -> list[Row]:
        """Match each request to a session (a new one when none fits or it is claimed).

        ``call`` claims every session it takes, until the call ends.
        """
        rows: list[Row] = []
        self.sessions.resize(min(max(self.max_sessions, 2 * len(requests)), self.session_limit))
        for request in requests:
            ids, heal, generated = self.prompt_plan(request.prompt, call)
            session, shared = self.sessions.match(ids)
            if (
                session is not None
                and len(requests) == 1
                and not session.exact
                and shared <= session.prompt_length
            ):
                session = None  # a new trajectory at batch size 1 is prefilled exactly
            if session is None:
                session = self.sessions.add(KVSession([], None, prompt_length=len(ids)), call)
                keep = 0
            elif shared == len(ids) == session.prompt_length and session.prompt_logits is not None:
                keep = shared  # the same first prompt again: its logits are stored
            else:
                keep = min(shared, len(ids) - 1)
            self.sessions.claim(session, call)
            session.exact = session.exact and len(requests) == 1
            if request.params.temperature > 0 and (
                session.generator is None
                or (keep <= session.prompt_length and request.params.seed is not None)
            ):
                session.generator = new_generator(request.params.seed, self.device)
            row = Row(request, ids, session, keep, TextDecoder(self._tokenizer, ids), heal=heal)
            row.healed, row.generated = len(heal), generated
            rows.append(row)
        return rows

    def _first_logits(self, row: Row) -> torch.Tensor:
        """Batch size 1: crop the session and feed the rest (or reuse the prompt's logits)."""
        session = row.session
        if session.cache is None:
            session.cache = _new_cache(self.model)
        crop_cache(session.cache, row.keep)
        session.ids, session.pending = row.ids[: row.keep], []
        if row.keep == len(row.ids):
            return torch.as_tensor(session.prompt_logits).unsqueeze(0)
        # generated ids one at a time, as they were computed; the rest in one piece each side
        start = max(row.keep, row.generated.start)
        stop = max(start, row.generated.stop)
        chunks = [row.ids[row.keep : start], *([t] for t in row.ids[start:stop]), row.ids[stop:]]
        for chunk in chunks:
            if chunk:
                logits = self._forward(session.cache, chunk)
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
        chosen = []
        for position, index in enumerate(active):
            row = rows[index]
            scores = logits[position : position + 1]
            if row.heal:
                scores = self._healing_scores(scores, row.heal)
            chosen.append(choose_tokens(scores, row.request.params, [row.session.generator])[0])
        return chosen

    def _healing_scores(self, scores: torch.Tensor, heal: str) -> torch.Tensor:
        """``scores`` with every token that cannot spell the start of ``heal`` masked out."""
        if self._healer is None:
            size = min(int(scores.shape[-1]), len(self._tokenizer))
            self._healer = TokenHealer(self._tokenizer, size)
        allowed = torch.tensor(self._healer.allowed(heal), device=scores.device)
        masked = torch.full_like(scores, float("-inf"))
        masked[:, allowed] = scores[:, allowed]
        return masked

    def _append(self, row: Row, token: int, logits: torch.Tensor) -> bool:
        """Add one token to a row; True when the row is finished."""
        request = row.request
        row.session.pending = [token]
        if token in self.end_ids:
            row.session.ids = row.ids + row.tokens
            row.text = row.decoder.text(row.tokens, final=True)[row.healed :]
            row.reason = FinishReason.STOP
            return True
        row.tokens.append(token)
        if row.heal and self._healer is not None:
            row.heal = self._healer.advance(row.heal, token)
        if request.params.logprobs:
            row.logprobs.extend(token_logprobs(logits.unsqueeze(0), [token]))
        row.session.ids = row.ids + row.tokens[:-1]
        row.text = row.decoder.text(row.tokens)[row.healed :]
        if row.heal:
            return False  # still spelling text the continuation already has
        row.text, row.reason = ending(request, row.text, len(row.tokens))
        return row.reason is not None

    def _finish(self, row: Row) -> Generation:
        logprobs = tuple(row.logprobs) if row.request.params.logprobs else None
        reason = row.reason or FinishReason.LENGTH
        return Generation(row.text, reason, tuple(row.tokens), logprobs)


def _new_cache(model: Any) -> Any:
    from transformers import DynamicCache

    return DynamicCache(config=model.config)
