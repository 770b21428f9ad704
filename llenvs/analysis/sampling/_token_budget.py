"""Budgets in tokens: what a rollout is priced at before it runs, and what a round may spend.

A rollout from before segment i is priced at the tokens the trace itself wrote after that point
(its ``token_ids``, else its characters / 4), at most the rollout's limit (``max_tokens``, plus
the answer opening's when the run forces one): continuations tend to be about as long as what
they replace. Schedules use the prices to choose (``prices=``), and a round is admitted only as
far as its rollouts fit in what is left at their *worst* cost, the limit, so a run never spends
past its budget however long the rollouts turn out; each is then charged what it really
generated (``Rollout.tokens``). By the same measure, ``reach`` says from how many boundaries a
rollout's limit reaches the trace's end at all: from the others it stops before an answer, and
counts as a failure whatever the step did.

Example:
    >>> affordable([0, 0, 1, 2], {0: 50, 1: 50, 2: 10}, 110)
    [0, 0, 2]

"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from llenvs.analysis.sampling._params import AnalysisParams
from llenvs.analysis.sampling._rollout import Rollout
from llenvs.analysis.sampling._rollout_engine import sampled_boundaries
from llenvs.evaluation.episodes import recorded_answer_opening
from llenvs.traces.records import Trace

__all__ = [
    "CHARACTERS_PER_TOKEN",
    "Reach",
    "affordable",
    "reach",
    "rollout_limit",
    "rollout_prices",
    "spent",
    "tokens_after",
]

CHARACTERS_PER_TOKEN = 4
"""Characters per token, for a segment that records no token ids."""


def tokens_after(trace: Trace) -> list[int]:
    """For each boundary 0..n, the tokens the trace wrote after it (at least 1).

    A rollout writes something, even from the end of an unfinished trace.

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="abcdefgh",
        ...           segments=(SegmentRecord(0, 0, 4, "abcd"), SegmentRecord(1, 4, 8, "efgh")))
        >>> tokens_after(t)
        [2, 1, 1]

    """
    sizes = [
        len(s.token_ids) if s.token_ids is not None else -(-len(s.text) // CHARACTERS_PER_TOKEN)
        for s in trace.segments
    ]
    after = [0] * (len(sizes) + 1)
    for boundary in range(len(sizes) - 1, -1, -1):
        after[boundary] = after[boundary + 1] + sizes[boundary]
    return [max(1, tokens) for tokens in after]


def rollout_limit(trace: Trace, params: AnalysisParams) -> int:
    """The most tokens one rollout can generate: ``max_tokens``, plus a forced answer opening's."""
    opening = recorded_answer_opening(trace)
    return params.max_tokens + (0 if opening is None else opening.max_tokens)


def rollout_prices(
    trace: Trace, params: AnalysisParams, boundaries: Iterable[int]
) -> dict[int, int]:
    """The price of a rollout from each of ``boundaries``: the trace's tokens after it, capped.

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="abcdefgh",
        ...           segments=(SegmentRecord(0, 0, 4, "abcd"), SegmentRecord(1, 4, 8, "efgh")))
        >>> rollout_prices(t, AnalysisParams(max_tokens=1), [0, 1])
        {0: 1, 1: 1}

    """
    after, limit = tokens_after(trace), rollout_limit(trace, params)
    return {b: min(limit, after[b]) for b in boundaries}


@dataclass(frozen=True)
class Reach:
    """From how many boundaries a rollout's token limit reaches the end of the trace.

    Measured by what the trace itself wrote after each sampled boundary (``tokens_after``):
    a continuation is about as long as what it replaces, so from a boundary the trace wrote
    more after, a rollout stops at its limit before any answer and counts as a failure.

    Example:
        >>> r = Reach(limit=256, reached=0, boundaries=321, median=2097, longest=3736,
        ...           needed=3736, estimated=True)
        >>> r.short, r.summary()  # doctest: +NORMALIZE_WHITESPACE
        (True, '256 tokens reach the end from 0 of 321 boundaries; the trace wrote a median of
        2,097 tokens after a boundary, at most 3,736 (counted as 4 characters a token: it
        records no token ids)')

    """

    limit: int
    """The most tokens one rollout can generate (``rollout_limit``)."""
    reached: int
    """The sampled boundaries after which the trace wrote at most ``limit`` tokens."""
    boundaries: int
    """The sampled boundaries (``sampled_boundaries``)."""
    median: int
    """The median of the tokens the trace wrote after a sampled boundary (the lower middle)."""
    longest: int
    """The most tokens the trace wrote after a sampled boundary."""
    needed: int
    """The ``max_tokens`` whose limit is ``longest``: it reaches the end from every boundary."""
    estimated: bool
    """True when a segment records no token ids, its tokens counted from its characters."""

    @property
    def short(self) -> bool:
        """True when the limit is below what the trace wrote after most boundaries."""
        return 2 * self.reached < self.boundaries

    def summary(self) -> str:
        """How far the limit reaches, and how much the trace wrote after a boundary, in words."""
        counted = (
            f" (counted as {CHARACTERS_PER_TOKEN} characters a token: it records no token ids)"
            if self.estimated
            else ""
        )
        return (
            f"{self.limit:,} tokens reach the end from {self.reached:,} of {self.boundaries:,} "
            f"boundaries; the trace wrote a median of {self.median:,} tokens after a boundary, "
            f"at most {self.longest:,}{counted}"
        )

    def warning(self, setting: str) -> str:
        """What the limit does to the values, and the ``setting`` that reaches everywhere.

        Empty when the limit reaches the end from every boundary.

        Example:
            >>> r = Reach(256, 300, 321, 120, 400, 400, False)
            >>> print(r.warning("--max-tokens"))  # doctest: +NORMALIZE_WHITESPACE
            256 tokens reach the end from 300 of 321 boundaries; the trace wrote a median of 120
            tokens after a boundary, at most 400. From the other 21 a rollout stops at its
            limit before an answer and counts as a failure; --max-tokens 400 reaches the end
            from every boundary, as far as the trace went.
            >>> Reach(256, 321, 321, 120, 200, 200, False).warning("--max-tokens")
            ''

        """
        if self.reached >= self.boundaries:
            return ""
        others = "all" if self.reached == 0 else "the other"
        return (
            f"{self.summary()}. From {others} {self.boundaries - self.reached:,} a rollout stops "
            f"at its limit before an answer and counts as a failure; {setting} {self.needed} "
            "reaches the end from every boundary, as far as the trace went."
        )


def reach(trace: Trace, params: AnalysisParams) -> Reach:
    """How far the rollouts of ``params`` reach from the boundaries of ``trace``.

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="abcdefgh",
        ...           segments=(SegmentRecord(0, 0, 4, "abcd", token_ids=(1, 2, 3)),
        ...                     SegmentRecord(1, 4, 8, "efgh", token_ids=(4,))))
        >>> r = reach(t, AnalysisParams(max_tokens=2))
        >>> r.reached, r.boundaries, r.median, r.needed, r.short
        (2, 3, 1, 4, False)

    """
    after, limit = tokens_after(trace), rollout_limit(trace, params)
    written = [after[b] for b in sampled_boundaries(trace)]
    longest = max(written)
    return Reach(
        limit=limit,
        reached=sum(tokens <= limit for tokens in written),
        boundaries=len(written),
        median=statistics.median_low(written),
        longest=longest,
        needed=max(1, longest - (limit - params.max_tokens)),
        estimated=any(s.token_ids is None for s in trace.segments),
    )


def spent(rollouts: Iterable[Rollout]) -> int:
    """Tokens the rollouts generated, failed ones included (they were paid for)."""
    return sum(r.tokens for r in rollouts)


def affordable(asked: Sequence[int], worst: Mapping[int, float], tokens_left: float) -> list[int]:
    """The rollouts of ``asked``, in its order, that fit in ``tokens_left`` at their ``worst``.

    A rollout that does not fit is skipped and a cheaper one after it may still fit.
    """
    kept: list[int] = []
    for boundary in asked:
        if worst[boundary] <= tokens_left:
            kept.append(boundary)
            tokens_left -= worst[boundary]
    return kept
