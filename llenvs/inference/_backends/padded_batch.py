"""Several requests decoded together: their KV-cache sessions stacked with left padding.

Each ``Row`` is one request matched to its ``KVSession``. ``PaddedBatch.from_rows`` crops every
session so that all rows feed the same number of tokens, stacks the caches with left padding
(an attention mask hides it; each row keeps its own rotary positions, given explicitly), feeds
them together, drops rows as they finish and hands each finished row its own cache back.

Rows with the same token ids (k rollouts from one prefix) are prefilled once (``PaddedBatch.
prefill``): only one row of each group (the one whose session keeps the most) is fed, then every
row of the group gets its own copy of that row's cache and logits (``fan_out``: indexing along
the batch dimension copies, so no row's cache aliases another's, and each row goes on with its
own session and random generator). Rows fed from scratch whose ids are a strict prefix of
another such row's (rollouts from every boundary of one response) are not fed either
(``nest_sources``): the longest row of the chain is, its logits are also read at each shorter
row's last position, and each shorter row gets that cache cut to its own length, moved right to
the batch's left padding (``gather_rows``). Positions are given explicitly and attention is
causal, so a cut cache is what the shorter row would have computed.

Example:
    >>> from llenvs.inference._backends.transformers_loading import get_embedded_backend
    >>> from llenvs.core._backend import GenerationRequest, Message, Prompt, SamplingParams
    >>> backend = get_embedded_backend()
    >>> prompts = [Prompt((Message("user", q),)) for q in ("Hi", "Name a colour.")]
    >>> out = backend.generate([GenerationRequest(p, SamplingParams(), 3) for p in prompts])
    >>> [len(g.token_ids) for g in out]
    [3, 3]

"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from llenvs.core import FinishReason, GenerationRequest
from llenvs.inference._backends.batched_cache import (
    crop_cache,
    gather_rows,
    row_cache,
    stack_caches,
    stackable,
)
from llenvs.inference._backends.kv_sessions import KVSession
from llenvs.inference._backends.text_decoding import TextDecoder

__all__ = ["PaddedBatch", "Row", "fork_sources", "nest_sources"]


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


def nest_sources(rows: list[Row], sources: list[int]) -> list[int]:
    """``sources``, with rows fed from scratch that prefix a longer one fed by the longest one.

    A row whose ids are a strict prefix of another row's is fed in its place by the longest
    such row. A row takes part only when its source keeps nothing (then every row with its ids
    keeps nothing); a longest row is never itself replaced.

    Example:
        >>> from types import SimpleNamespace as Rowlike
        >>> rows = [Rowlike(ids=[1], keep=0), Rowlike(ids=[1, 2, 3], keep=0),
        ...         Rowlike(ids=[1, 2], keep=0), Rowlike(ids=[1, 2], keep=1),
        ...         Rowlike(ids=[1, 2, 3, 4], keep=2), Rowlike(ids=[5], keep=0)]
        >>> nest_sources(rows, [0, 1, 3, 3, 4, 5])
        [1, 1, 3, 3, 4, 5]

    """
    fresh = sorted({s for s in sources if rows[s].keep == 0}, key=lambda i: -len(rows[i].ids))
    longest: dict[int, int] = {}
    for position, index in enumerate(fresh):
        ids = rows[index].ids
        longer = (j for j in fresh[:position] if len(rows[j].ids) > len(ids))
        longest[index] = next((j for j in longer if rows[j].ids[: len(ids)] == ids), index)
    return [longest.get(s, s) for s in sources]


def _cut_reads(
    rows: list[Row], picks: list[int], fed: list[Row]
) -> tuple[list[tuple[int, int]], list[int]]:
    """What the fed rows must also read for rows cut shorter, and where each row's logits are.

    Row ``i`` is fed as ``fed[picks[i]]``; when shorter, it needs the logits after its own
    length (a read: fed row, length). Each row's logits are at its fed row's position, or, for
    a cut row, after the fed rows' own, at its read's position.

    Example:
        >>> from types import SimpleNamespace as Rowlike
        >>> a, b, c = Rowlike(ids=[1, 2, 3]), Rowlike(ids=[1]), Rowlike(ids=[7])
        >>> _cut_reads([a, b, c, b], [0, 0, 1, 0], [a, c])
        ([(0, 1)], [0, 2, 1, 2])

    """
    reads = sorted(
        {(p, len(r.ids)) for r, p in zip(rows, picks, strict=True) if len(r.ids) < len(fed[p].ids)}
    )
    where = [
        p if len(r.ids) == len(fed[p].ids) else len(fed) + reads.index((p, len(r.ids)))
        for r, p in zip(rows, picks, strict=True)
    ]
    return reads, where


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
        >>> from llenvs.core._backend import Message, Prompt, SamplingParams
        >>> from llenvs.inference._backends.transformers_loading import get_embedded_backend
        >>> backend = get_embedded_backend()
        >>> request = GenerationRequest(Prompt((Message("user", "Hi"),)), SamplingParams(), 1)
        >>> def fresh_rows(*ids_of_rows):  # rows with nothing cached yet
        ...     return [Row(request, ids, KVSession([], None, len(ids)), 0,
        ...                 TextDecoder(backend.tokenizer, ids)) for ids in ids_of_rows]
        >>> batch = PaddedBatch.from_rows(backend.model, fresh_rows([1, 2, 3], [4, 5]))
        >>> batch.padding, tuple(batch.forward([[1, 2, 3], [4, 5]]).shape)
        ([0, 1], (2, 49152))

        ``prefill`` feeds rows with the same ids once, and rows whose ids are prefixes of
        another's with it:

        >>> batch, logits = PaddedBatch.prefill(backend.model, fresh_rows([1, 2], [3], [1, 2]))
        >>> batch.padding, tuple(logits.shape), bool((logits[0] == logits[2]).all())
        ([0, 1, 0], (3, 49152), True)
        >>> rows = fresh_rows([1, 2, 3], [1])
        >>> batch, logits = PaddedBatch.prefill(backend.model, rows)  # [1, 2, 3] fed alone
        >>> batch.padding, batch.lengths, [r.session.ids for r in rows]
        ([0, 2], [3, 1], [[1, 2, 3], [1]])

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

        With ``fork``, rows with the same ids are fed once, and so are rows whose ids are
        prefixes of one another (see the module docstring). When every row fed keeps its whole
        ids (the same first prompt as its session's), nothing is fed: the sessions' stored
        logits are used. The class's example prefills such rows.
        """
        sources = nest_sources(rows, fork_sources(rows)) if fork else list(range(len(rows)))
        fed = sorted(set(sources))
        batch = cls.from_rows(model, [rows[i] for i in fed])
        picks = [fed.index(s) for s in sources]
        reads, where = _cut_reads(rows, picks, batch.rows)
        if batch.keeps == [len(r.ids) for r in batch.rows]:  # first prompts seen before
            logits = torch.stack([torch.as_tensor(r.session.prompt_logits) for r in batch.rows])
        else:
            feeds = [r.ids[k:] for r, k in zip(batch.rows, batch.keeps, strict=True)]
            logits = batch.forward(feeds, reads)
        if len(fed) == len(rows):
            return batch, logits
        return batch, batch.fan_out(rows, picks, logits[torch.tensor(where, device=logits.device)])

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

    def forward(
        self, feeds: list[list[int]], reads: Sequence[tuple[int, int]] = ()
    ) -> torch.Tensor:
        """Feed each row its tokens (left-padded to the longest); next-token logits per row.

        Each of ``reads`` (row, length) asks also for the logits after that row's first
        ``length`` positions (one fed in this call); they follow the rows' own, in order.
        """
        width = max(len(f) for f in feeds)
        device = self.device
        ids = torch.zeros((len(feeds), width), dtype=torch.long)
        positions = torch.zeros((len(feeds), width), dtype=torch.long)
        for read, length in reads:
            if not self.lengths[read] < length <= self.lengths[read] + len(feeds[read]):
                raise ValueError(f"a read must end among the positions fed, got {(read, length)}")
        columns = [width - len(feeds[r]) - self.lengths[r] + n - 1 for r, n in reads]
        for index, feed in enumerate(feeds):
            start = width - len(feed)
            ids[index, start:] = torch.tensor(feed)
            base = self.lengths[index]
            positions[index, start:] = torch.arange(base, base + len(feed))
            self.lengths[index] += len(feed)
        if self.mask.shape[1] < self.cache.get_seq_length() + width:
            extra = torch.ones((len(feeds), width), dtype=torch.long, device=device)
            self.mask = torch.cat([self.mask, extra], dim=1)
        kept = sorted({*columns, width - 1})
        output = self.model(
            input_ids=ids.to(device),
            attention_mask=self.mask,
            position_ids=positions.to(device),
            cache=self.cache,
            use_cache=True,
            logits_to_keep=torch.tensor(kept, device=device) if reads else 1,
        )
        logits: torch.Tensor = output.logits[:, -1, :]
        if reads:
            more = [
                output.logits[r, kept.index(c)] for (r, _), c in zip(reads, columns, strict=True)
            ]
            logits = torch.cat([logits, torch.stack(more)])
        for index, row in enumerate(self.rows):
            if row.session.prompt_logits is None and not row.session.ids:
                row.session.prompt_logits = logits[index].clone()
            if len(row.session.ids) < len(row.ids):
                row.session.ids = list(row.ids)
        return logits

    def fan_out(self, rows: list[Row], sources: list[int], logits: torch.Tensor) -> torch.Tensor:
        """Make the batch ``rows``: row ``i`` a copy of current row ``sources[i]`` cut to its ids.

        ``logits`` are the new rows' next-token logits, returned as they are. Every row's
        session is left as if the row had been fed itself (its cache comes back on
        ``release``).
        """
        drops = [self.lengths[s] - len(r.ids) for r, s in zip(rows, sources, strict=True)]
        self._gather(sources, drops)  # indexing copies: each row owns its keys and values
        for row, source, row_logits in zip(rows, sources, logits, strict=True):
            session = row.session
            if session is self.rows[source].session:
                continue
            if session.prompt_logits is None and not session.ids:
                session.prompt_logits = row_logits.clone()
            session.cache, session.ids, session.pending = None, list(row.ids), []
        self.rows = list(rows)
        self.keeps = [self.keeps[s] for s in sources]
        return logits

    def release(self, row: Row, position: int) -> None:
        """A finished row takes its own cache back into its session."""
        row.session.cache = row_cache(self.cache, position, self.padding[position])

    def select(self, positions: list[int]) -> None:
        """Keep only the rows at ``positions`` (the others finished)."""
        self._gather(positions)
        self.rows = [self.rows[p] for p in positions]

    def _gather(self, positions: list[int], drops: Sequence[int] | None = None) -> None:
        """Make row ``i`` of the cache, mask, padding and lengths current row ``positions[i]``.

        With ``drops``, row ``i`` is cut by its last ``drops[i]`` positions (left-padded again).
        """
        drops = [0] * len(positions) if drops is None else list(drops)
        gather_rows(self.cache, positions, drops)
        self.mask = self.mask[torch.tensor(positions, device=self.device)]
        self.padding = [self.padding[p] + d for p, d in zip(positions, drops, strict=True)]
        self.lengths = [self.lengths[p] - d for p, d in zip(positions, drops, strict=True)]
        for index, (pad, drop) in enumerate(zip(self.padding, drops, strict=True)):
            if drop > 0:
                self.mask[index, :pad] = 0
