"""Where a resample set's answers went from its parent's: each answer's share, and the moves.

Browse's branch comparison shows a resample set beside its parent. The parent gave one answer;
the samples give a distribution. ``answer_moves`` counts each answer on both sides, says how
many samples kept the parent's answer (with its 95% interval: the share a new sample would keep
it, estimated from these) and where the others moved.

Example:
    >>> parent = leg_counting_trace("Count. So 8. <answer>8</answer>")
    >>> samples = [leg_counting_trace(f"So {x}. <answer>{x}</answer>") for x in (8, 100, 100)]
    >>> moves = answer_moves(parent, samples)
    >>> moves.table.values.tolist()
    [['100', 0, 2], ['8', 1, 1]]
    >>> print(moves.caption)
    the parent answered 8; 1 of 3 samples kept it (33%, 95% interval 6%–79%); 2 moved: to 100 (2)
    >>> moves.rate
    'success 2/3 = 67% (95% interval 21%–94%)'

"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from llenvs.adapters import extract_answer
from llenvs.analysis.statistics import wilson_interval
from llenvs.traces import Trace

__all__ = ["AnswerMoves", "answer_moves"]


@dataclass(frozen=True)
class AnswerMoves:
    """Each answer's count on each side, and the moves in words."""

    table: pd.DataFrame
    """One row per answer: ``answer``, ``parent`` (0 or 1), ``samples``; most samples first."""
    caption: str
    """How many kept the parent's answer, with its interval, and where the others went."""
    rate: str
    """The samples' success rate with its 95% interval, in words."""


def answer_moves(parent: Trace, samples: Sequence[Trace]) -> AnswerMoves:
    """The answers of ``parent`` and of its ``samples`` side by side (see the module)."""
    if not samples:
        raise ValueError("a resample set needs at least one sample")
    before = _answer(parent)
    counts = Counter(_answer(sample) for sample in samples)
    order = sorted(set(counts) | {before}, key=lambda a: (-counts[a], a != before, a))
    table = pd.DataFrame(
        [(answer, int(answer == before), counts[answer]) for answer in order],
        columns=["answer", "parent", "samples"],
    )
    kept = counts[before]
    interval = wilson_interval(kept, len(samples))
    moved = {a: n for a, n in counts.items() if a != before}
    where = ", ".join(f"to {a} ({n})" for a, n in sorted(moved.items(), key=lambda m: -m[1]))
    caption = (
        f"the parent answered {before}; {kept} of {len(samples)} samples kept it "
        f"({kept / len(samples):.0%}, 95% interval {interval.low:.0%}–{interval.high:.0%})"
    )
    if moved:
        caption += f"; {sum(moved.values())} moved: {where}"
    wins = sum(1 for sample in samples if sample.success)
    won = wilson_interval(wins, len(samples))
    rate = (
        f"success {wins}/{len(samples)} = {wins / len(samples):.0%} "
        f"(95% interval {won.low:.0%}–{won.high:.0%})"
    )
    return AnswerMoves(table, caption, rate)


def _answer(trace: Trace) -> str:
    found = extract_answer(trace.response)
    return "—" if found is None else found
