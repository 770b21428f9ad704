"""The step values panel's table: one row per boundary of a trace, from a ``StepAnalysis``.

Boundary i is before segment i; the last row is the end of the trace. A long trace's chart opens
zoomed (``importance_chart``): the table then shows the rows of the chart's window
(``window_rows``), and says which (``window_caption``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pandas as pd

from llenvs.analysis import StepAnalysis
from llenvs.analysis.instruments import ContentReturns, StepReturn

__all__ = ["COLUMNS", "RETURNED", "value_rows", "window_caption", "window_rows", "with_returns"]

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


RETURNED = "returned"
"""The column ``with_returns`` adds: the share of a step's rollouts its content came back in."""


def with_returns(rows: pd.DataFrame, returns: ContentReturns, *, only_gone: bool) -> pd.DataFrame:
    """``rows`` with the share of each step's rollouts in which its content came back.

    ``only_gone``: the importance (and its interval) becomes the one measured only on the
    rollouts where the content did not return (``StepReturn.importance``; NaN where unknown).

    Example:
        >>> from llenvs.analysis.statistics._interval import Interval
        >>> from llenvs.analysis.instruments._resilience import StepReturn
        >>> rows = value_rows(2, StepAnalysis("t", {}, (), (), None, ()))
        >>> found = ContentReturns("lexical", 0.8, (), (
        ...     StepReturn(1, 4, 1, 0.25, None, 0.5, Interval(0.1, 0.9)),))
        >>> shown = with_returns(rows, found, only_gone=True)
        >>> shown[RETURNED].tolist()[:2], shown["importance"].tolist()[:2]
        ([nan, 0.25], [nan, 0.5])

    """
    steps = returns.by_step()

    def column(read: Callable[[StepReturn], float | None]) -> list[float]:
        found = (steps.get(int(boundary)) for boundary in rows["#"])
        return [math.nan if step is None else _number(read(step)) for step in found]

    shown = rows.copy()
    shown.insert(shown.columns.get_loc("divergence") + 1, RETURNED, column(lambda s: s.share))
    if not only_gone:
        return shown
    return shown.assign(
        **{
            "importance": column(lambda s: s.importance),
            "importance low": column(lambda s: None if s.importance is None else s.interval.low),
            "importance high": column(lambda s: None if s.importance is None else s.interval.high),
        }
    )


def window_rows(rows: pd.DataFrame, span: tuple[float, float] | None) -> pd.DataFrame:
    """The rows of ``rows`` whose boundary lies in ``span``, the chart's x range; all for None.

    Example:
        >>> rows = value_rows(321, StepAnalysis("t", {}, (), (), None, ()))
        >>> shown = window_rows(rows, (127.5, 188.5))
        >>> len(shown), shown["#"].tolist()[0], shown["#"].tolist()[-1]
        (61, 128, 188)
        >>> window_rows(rows, None) is rows
        True

    """
    if span is None:
        return rows
    low, high = span
    return rows[(rows["#"] >= low) & (rows["#"] <= high)]


def window_caption(rows: pd.DataFrame, shown: pd.DataFrame) -> str:
    """Which of ``rows`` the table shows (``shown``), in words; "" when it shows them all.

    Example:
        >>> rows = value_rows(321, StepAnalysis("t", {}, (), (), None, ()))
        >>> window_caption(rows, window_rows(rows, (127.5, 188.5)))
        'Rows 128–188 of 0–321, the chart’s window'
        >>> window_caption(rows, window_rows(rows, (261.5, 322.5)))
        'Rows 262–321 (the end) of 0–321, the chart’s window'

    """
    if len(shown) == len(rows) or shown.empty:
        return ""
    last = int(rows["#"].iloc[-1])
    first_shown, last_shown = int(shown["#"].iloc[0]), int(shown["#"].iloc[-1])
    end = " (the end)" if last_shown == last else ""
    return f"Rows {first_shown}–{last_shown}{end} of 0–{last}, the chart’s window"


def _number(value: float | None) -> float:
    return math.nan if value is None else float(value)
