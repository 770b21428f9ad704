"""Budgets in tokens: what a rollout is priced at before it runs, and what a round may spend.

A rollout from before segment i is priced at the tokens the trace itself wrote after that point
(its ``token_ids``, else its characters / 4), at most the rollout's limit (``max_tokens``, plus
the answer opening's when the run forces one): continuations tend to be about as long as what
they replace. Schedules use the prices to choose (``prices=``), and a round is admitted only as
far as its rollouts fit in what is left at their *worst* cost, the limit, so a run never spends
past its budget however long the rollouts turn out; each is then charged what it really
generated (``Rollout.tokens``).

Example:
    >>> affordable([0, 0, 1, 2], {0: 50, 1: 50, 2: 10}, 110)
    [0, 0, 2]

"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from llenvs.analysis.analysis_params import AnalysisParams
from llenvs.analysis.rollout import Rollout
from llenvs.evaluation.recorded_answer_opening import recorded_answer_opening
from llenvs.traces.trace import Trace

__all__ = [
    "CHARACTERS_PER_TOKEN",
    "affordable",
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
