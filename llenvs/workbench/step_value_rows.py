"""The step values panel's table: one row per boundary of a trace, from a ``StepAnalysis``.

Boundary i is before segment i; the last row is the end of the trace.
"""

from __future__ import annotations

import math

import pandas as pd

from llenvs.analysis.step_analysis import StepAnalysis

__all__ = ["COLUMNS", "value_rows"]

COLUMNS = [
    "#",
    "value",
    "low",
    "high",
    "trials",
    "exact",
    "importance",
    "importance low",
    "importance high",
    "moved",
    "divergence",
    "forced answer",
    "forced right",
]


def value_rows(segments: int, analysis: StepAnalysis) -> pd.DataFrame:
    """One row per boundary 0..``segments`` of a trace with ``segments`` segments.

    Row i holds ``v_i`` (``value``, NaN when unknown) with its interval (``low``, ``high``),
    the rollouts counted (``trials``), whether it is the trace's own verdict (``exact``), the
    importance of segment i (``importance``: ``v_{i+1} - v_i``, NaN when unknown or past the
    last segment) with its interval, its chance of having moved the value by at least the
    analysis's δ (``moved``, ``StepAnalysis.delta``) and its answer shift (``divergence``), and
    the answer forced before segment i with its verdict (``forced answer``, ``forced right``:
    None when none).

    Example:
        >>> empty = StepAnalysis("t", {}, (), (), None, ())
        >>> rows = value_rows(1, empty)
        >>> rows["value"].tolist(), rows["low"].tolist(), rows["trials"].tolist()
        ([nan, nan], [0.0, 0.0], [0, 0])

    """
    values = {v.boundary: v for v in analysis.values}
    steps = {s.step: s for s in analysis.importances}
    forced = {a.boundary: a for a in analysis.forced_answers or ()}
    rows = []
    for boundary in range(segments + 1):
        value, step, answer = values.get(boundary), steps.get(boundary), forced.get(boundary)
        interval = None if step is None or step.importance is None else step.interval
        rows.append(
            {
                "#": boundary,
                "value": _number(None if value is None else value.value),
                "low": 0.0 if value is None else value.interval.low,
                "high": 1.0 if value is None else value.interval.high,
                "trials": 0 if value is None else value.trials,
                "exact": value is not None and value.exact,
                "importance": _number(step.importance if step is not None else None),
                "importance low": math.nan if interval is None else interval.low,
                "importance high": math.nan if interval is None else interval.high,
                "moved": _number(analysis.moved.get(boundary)),
                "divergence": _number(step.divergence if step is not None else None),
                "forced answer": None if answer is None else answer.answer,
                "forced right": None if answer is None else answer.correct,
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def _number(value: float | None) -> float:
    return math.nan if value is None else float(value)
