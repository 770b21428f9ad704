r"""``llenvs analyze FILE --trace N --segmenters SPEC SPEC ...``: which step mattered, per cut.

The trace's response is cut again by each segmenter and each cut analysed as ``llenvs analyze``
would (``compare_segmenters``); the planned tokens of each cut are printed first, then one row
per segmenter (its steps, rollouts, tokens, and the span of characters of its largest move with
the text there), then a line per pair (``SegmenterPair.summary``): where their largest moves
fall (the same text, overlapping text, the two sides of one spike, or apart), how wide each is,
and Kendall's τ of their importances on characters, led by "too few rollouts to tell" where the
95% intervals either side of a largest move overlap. The comparison is stored beside the trace;
``--budget 0`` prints the stored one (of the segmenters named, else the last) without a model.

Example:
    >>> from llenvs.analysis import SegmenterComparison, SegmenterValues
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="Two cows. So 8.",
    ...           segments=(SegmentRecord(0, 0, 15, "Two cows. So 8."),))
    >>> print(segmenter_table(t, SegmenterComparison(t.trace_id, (
    ...     SegmenterValues("sentence", (0, 10, 15), (0.2, 0.9, 1.0), 8, 40),))))
    segmenter          steps  rollouts  tokens  largest move (characters)  text
    sentence               2         8      40  0–10 (+0.70)               'Two cows. '

"""

from __future__ import annotations

import os
from collections.abc import Sequence

from llenvs.analysis import (
    AnalysisParams,
    SegmenterComparison,
    plan_cuts,
    stored_comparison,
)
from llenvs.traces import Trace

__all__ = ["planned_tokens", "print_comparison", "print_stored_comparison", "segmenter_table"]


def planned_tokens(trace: Trace, specs: Sequence[str], params: AnalysisParams) -> str:
    """One line: the most rollouts and the estimated tokens of each cut, before anything runs."""
    parts = []
    total = 0
    for spec, cost in plan_cuts(trace, specs, params):
        total += cost.estimated_tokens
        parts.append(f"{spec} ~{cost.estimated_tokens:,} ({cost.rollouts} rollouts)")
    return f"planned per segmenter: {'; '.join(parts)}; ~{total:,} tokens in all"


def segmenter_table(trace: Trace, comparison: SegmenterComparison) -> str:
    """One row per segmenter: its steps, rollouts, tokens and largest move (see the module)."""
    lines = [
        f"{'segmenter':<18} {'steps':>5} {'rollouts':>9} {'tokens':>7}  "
        f"{'largest move (characters)':<26} text"
    ]
    for values in comparison.segmenters:
        step = values.largest_step()
        moved = ""
        text = ""
        if step is not None:
            start, end = values.cuts[step], values.cuts[step + 1]
            moved = f"{start}–{end} ({values.importances()[step]:+.2f})"
            text = repr(trace.response[start:end][:40])
        lines.append(
            f"{values.spec:<18} {len(values.cuts) - 1:>5} {values.rollouts:>9} "
            f"{values.tokens:>7}  {moved:<26} {text}".rstrip()
        )
    return "\n".join(lines)


def print_comparison(trace: Trace, comparison: SegmenterComparison) -> None:
    """The table, then a line per pair of segmenters."""
    print(segmenter_table(trace, comparison))
    for pair in comparison.pairs():
        print(pair.summary())


def print_stored_comparison(
    trace: Trace, store: str | os.PathLike[str], specs: Sequence[str] = ()
) -> int:
    """The comparison stored for ``trace`` (0), or say there is none (1).

    The last one of ``specs`` where one is stored, else the last of any, named as such.
    """
    found = stored_comparison(store, trace.trace_id, specs) if specs else None
    if found is None:
        found = stored_comparison(store, trace.trace_id)
    if found is None:
        print(
            f"no comparison of segmenters stored for trace {trace.trace_id} in {store}: run "
            "llenvs analyze with --segmenters and a budget"
        )
        return 1
    key, comparison = found
    stored = [v.spec for v in comparison.segmenters]
    if specs and stored != list(specs):
        print(
            f"no comparison of {' '.join(specs)} stored; the last stored is of {' '.join(stored)}"
        )
    print(f"stored comparison ({key.get('model', '?')}, seed {key.get('seed', '?')}):")
    print_comparison(trace, comparison)
    return 0
