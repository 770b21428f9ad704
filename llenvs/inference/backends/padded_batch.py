"""Several requests decoded together: their KV-cache sessions stacked with left padding.

Each ``Row`` is one request matched to its ``KVSession``. ``PaddedBatch.from_rows`` crops every
session so that all rows feed the same number of tokens, stacks the caches with left padding
(an attention mask hides it; each row keeps its own rotary positions, given explicitly), feeds
them together, drops rows as they finish and hands each finished row its own cache back.

Rows with the same token ids (k rollouts from one prefix) are prefilled once (``PaddedBatch.
prefill``): only one row of each group (the one whose session keeps the most) is fed, then every
row of the group gets its own copy of that row's cache and logits (``fan_out``: indexing along
the batch dimension copies, so no row's cache aliases another's, and each row goes on with its
own session and random generator).

Example:
    >>> from llenvs.inference.backends.transformers_loading import get_embedded_backend
    >>> from llenvs.core.backend import GenerationRequest, Message, Prompt, SamplingParams
    >>> backend = get_embedded_backend()
    >>> prompts = [Prompt((Message("user", q),)) for q in ("Hi", "Name a colour.")]
    >>> out = backend.generate([GenerationRequest(p, SamplingParams(), 3) for p in prompts])
    >>> [len(g.token_ids) for g in out]
    [3, 3]

"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch

from llenvs.core.backend import FinishReason, GenerationRequest
from llenvs.inference.backends.batched_cache import crop_cache, row_cache, stack_caches, stackable
from llenvs.inference.backends.kv_sessions import KVSession
from llenvs.inference.backends.text_decoding import TextDecoder

__all__ = ["PaddedBatch", "Row", "fork_sources"]


def fork_sources(rows: list[Row]) -> list[int]:
    """For each row, the row fed in its place: of the rows with its ids, the one keeping most.

    Example:
        >>> from types import SimpleNamespace as Rowlike
        >>> fork_sources([Rowlike(ids=[1, 2], keep=0), Rowlike(ids=[3], keep=0),
        ...               Rowlike(ids=[1, 2], keep=1)])
        [2, 1, 2]

    """
    best: dict[tuple[int, ...], int] = {}
    for index, row in enumerate(rows):
        key = tuple(row.ids)
        if key not in best or row.keep > rows[best[key]].keep:
            best[key] = index
    return [best[tuple(row.ids)] for row in rows]


@dataclass(eq=False)
class Row:
    """One request in flight: its ids, its session, and what it generated so far.

    Example:
        >>> [f for f in Row.__dataclass_fields__][:3]
        ['request', 'ids', 'session']

    """

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
    heal: str = ""
    """Text the next tokens must spell first (already in the continuation: token healing)."""
    healed: int = 0
    """Length of the healed text, cut from the start of ``text``."""
    generated: range = range(0)
    """Positions of ``ids`` that a model generated (fed one at a time at batch size 1)."""


class PaddedBatch:
    """Rows decoded together: their caches stacked with left padding (see the module docstring).

    Example:
        >>> from llenvs.core.backend import Message, Prompt, SamplingParams
        >>> from llenvs.inference.backends.transformers_loading import get_embedded_backend
        >>> backend = get_embedded_backend()
        >>> request = GenerationRequest(Prompt((Message("user", "Hi"),)), SamplingParams(), 1)
        >>> rows = [Row(request, ids, KVSession([], None, len(ids)), 0,
        ...             TextDecoder(backend.tokenizer, ids)) for ids in ([1, 2, 3], [4, 5])]
        >>> batch = PaddedBatch.from_rows(backend.model, rows)
        >>> batch.padding, tuple(batch.forward([[1, 2, 3], [4, 5]]).shape)
        ([0, 1], (2, 49152))

    """

    def __init__(self, model: Any, rows: list[Row], keeps: list[int]) -> None:
        self.model = model
        self.device = next(model.parameters()).device
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
        self.mask = self.mask.to(self.device)
        self.lengths = list(keeps)  # real positions per row so far

    @classmethod
    def prefill(cls, model: Any, rows: list[Row], *, fork: bool = True) -> tuple[PaddedBatch, Any]:
        """A batch of ``rows`` with their ids fed, and each row's next-token logits.

        With ``fork``, rows with the same ids are fed once (see the module docstring). When
        every row fed keeps its whole ids (the same first prompt as its session's), nothing is
        fed: the sessions' stored logits are used.

        Example:
            >>> from llenvs.core.backend import Message, Prompt, SamplingParams
            >>> from llenvs.inference.backends.transformers_loading import get_embedded_backend
            >>> backend = get_embedded_backend()
            >>> request = GenerationRequest(Prompt((Message("user", "Hi"),)), SamplingParams(), 1)
            >>> rows = [Row(request, ids, KVSession([], None, len(ids)), 0,
            ...             TextDecoder(backend.tokenizer, ids)) for ids in ([1, 2], [3], [1, 2])]
            >>> batch, logits = PaddedBatch.prefill(backend.model, rows)
            >>> batch.padding, tuple(logits.shape), bool((logits[0] == logits[2]).all())
            ([0, 1, 0], (3, 49152), True)

        """
        sources = fork_sources(rows) if fork else list(range(len(rows)))
        fed = sorted(set(sources))
        batch = cls.from_rows(model, [rows[i] for i in fed])
        if batch.keeps == [len(r.ids) for r in batch.rows]:  # first prompts seen before
            logits = torch.stack([torch.as_tensor(r.session.prompt_logits) for r in batch.rows])
        else:
            feeds = [r.ids[k:] for r, k in zip(batch.rows, batch.keeps, strict=True)]
            logits = batch.forward(feeds)
        if len(fed) == len(rows):
            return batch, logits
        return batch, batch.fan_out(rows, [fed.index(s) for s in sources], logits)

    @classmethod
    def from_rows(cls, model: Any, rows: list[Row]) -> PaddedBatch:
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
        return cls(model, rows, keeps)

    def forward(self, feeds: list[list[int]]) -> torch.Tensor:
        """Feed each row its tokens (left-padded to the longest); next-token logits per row."""
        width = max(len(f) for f in feeds)
        device = self.device
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
        output = self.model(
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

    def fan_out(self, rows: list[Row], sources: list[int], logits: torch.Tensor) -> torch.Tensor:
        """Make the batch ``rows``, row ``i`` a copy of current row ``sources[i]``; its logits.

        Every row's session is left as if the row had been fed itself (its cache comes back
        on ``release``).
        """
        self._gather(sources)  # indexing copies: each row owns its keys and values
        for row, source in zip(rows, sources, strict=True):
            session = row.session
            if session is self.rows[source].session:
                continue
            if session.prompt_logits is None and not session.ids:
                session.prompt_logits = logits[source].clone()
            session.cache, session.ids, session.pending = None, list(row.ids), []
        self.rows = list(rows)
        self.keeps = [self.keeps[s] for s in sources]
        return logits[torch.tensor(sources, device=logits.device)]

    def release(self, row: Row, position: int) -> None:
        """A finished row takes its own cache back into its session."""
        row.session.cache = row_cache(self.cache, position, self.padding[position])

    def select(self, positions: list[int]) -> None:
        """Keep only the rows at ``positions`` (the others finished)."""
        self._gather(positions)
        self.rows = [self.rows[p] for p in positions]

    def _gather(self, positions: list[int]) -> None:
        """Make row ``i`` of the cache, mask, padding and lengths current row ``positions[i]``."""
        index = torch.tensor(positions, device=self.device)
        layers: list[Any] = list(self.cache.layers)
        for layer in layers:
            layer.keys = layer.keys[index]
            layer.values = layer.values[index]
        self.mask = self.mask[index]
        self.padding = [self.padding[p] for p in positions]
        self.lengths = [self.lengths[p] for p in positions]
