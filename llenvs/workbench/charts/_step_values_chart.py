"""The step values panel's chart: ``v_i`` and ``v_{i+1} - v_i``, with their 95% intervals.

``step_values_figure`` draws the rows of ``step_value_rows.value_rows`` as two bar charts
(Vega-Lite specs) over one segment axis, in the segment chart's order and colours: step
values coloured on its red–amber–green PRM scale, importances like the segment table's rewards
(green when the step helped, red when it hurt), each bar with its 95% interval as a whisker,
the selected segment marked with the same dotted line, the forced-answer curve (1: the answer
forced there is right, 0: wrong) over the values when it is stored, and the trace's human step
labels as small marks along the bottom of the values (``segment_chart.label_marks``). A click
over a bar selects its segment (``segment_chart.selected_segment`` reads it).

Example:
    >>> from llenvs.analysis.statistics._boundary_value import boundary_values
    >>> from llenvs.analysis.sampling._rollout import Rollout
    >>> from llenvs.analysis._step_analysis import StepAnalysis
    >>> from llenvs.analysis.statistics._step_importance import step_importances
    >>> rollouts = [Rollout(b, n, 0, n < 2 * b, "4", 1) for b in range(3) for n in range(4)]
    >>> values = boundary_values(rollouts, range(3))
    >>> analysis = StepAnalysis("t", {}, tuple(values), tuple(step_importances(values)), None,
    ...                         tuple(rollouts))
    >>> from llenvs.workbench.browse import value_rows
    >>> rows = value_rows(2, analysis)
    >>> rows["value"].tolist(), rows["importance"].tolist()[:2]
    ([0.0, 0.5, 1.0], [0.5, 0.5])
    >>> from llenvs.workbench.charts._segment_chart import layer_names
    >>> [layer_names(chart)[0] for chart in step_values_figure(rows, selected=1)]
    ['step value v_i', 'importance v_i+1 − v_i']

"""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from llenvs.workbench._whitespace import one_line
from llenvs.workbench.browse import score_colour
from llenvs.workbench.charts._segment_chart import (
    SCORE_COLOURS,
    SELECTED,
    Spec,
    label_marks,
    plain,
    renderer,
    segment_columns,
    selected_rule,
    x_axis,
)

__all__ = ["CROWDED", "OUR_IMPORTANCE", "importance_colour", "step_values_figure"]

OUR_IMPORTANCE = "v_i+1 − v_i"
"""The importance the engine computes from the values (the lower chart's default measure)."""

CROWDED = 80
"""Past this many bars in view, only the selected bar is outlined and the bars sit closer."""


def importance_colour(value: float) -> str:
    """The colour of an importance bar: the segment table's reward colours by sign.

    Example:
        >>> importance_colour(0.4), importance_colour(-0.1)
        ('rgba(60, 180, 60, 0.45)', 'rgba(220, 60, 60, 0.45)')

    """
    if math.isnan(value):
        return "rgba(0, 0, 0, 0)"
    shade = score_colour(1.0 if value > 0 else 0.0 if value < 0 else 0.5)
    return shade.removeprefix("background-color: ")


def step_values_figure(
    rows: pd.DataFrame,
    selected: int | None = None,
    *,
    measure: str = OUR_IMPORTANCE,
    span: tuple[float, float] | None = None,
    labels: Mapping[int, int] | None = None,
) -> tuple[Spec, Spec]:
    """The charts of ``value_rows``: values, then importances, ``selected`` marked.

    Two Vega-Lite specs over the same segment axis, drawn one above the other. ``measure``
    names the lower chart's bars (``rows["importance"]``): ours, ``v_{i+1} - v_i`` on a fixed
    -1..1 axis with its intervals, or another importance measure (an axis that fits its
    numbers, no interval). ``span``: the range of segments the x axis shows (the bars in it are
    drawn), all of them when None. Where many bars are in view, only the selected one is
    outlined. ``labels`` (segment -> -1, 0 or 1: the segment table's label column) are marked
    at their segments under the values.

    Example:
        >>> from llenvs.analysis._step_analysis import StepAnalysis
        >>> from llenvs.workbench.charts._segment_chart import layer_names
        >>> from llenvs.workbench.browse import value_rows
        >>> empty = StepAnalysis("t", {}, (), (), None, ())
        >>> values, importances = step_values_figure(value_rows(2, empty), selected=0)
        >>> layer_names(values), [r["segment"] for r in values["data"]["values"]]
        (['step value v_i', 'interval', 'selected segment', 'segments'], [0, 1, 2])
        >>> layer_names(importances)
        ['importance v_i+1 − v_i', 'interval', 'selected segment', 'segments']
        >>> zoomed, _ = step_values_figure(value_rows(300, empty), 150, span=(120.5, 179.5))
        >>> zoomed["layer"][0]["encoding"]["x"]["scale"]["domain"], len(zoomed["data"]["values"])
        ([120.5, 179.5], 59)
        >>> marked, _ = step_values_figure(value_rows(2, empty), labels={1: -1})
        >>> layer_names(marked)[-2]
        'human label'

    """
    every = [int(b) for b in rows["#"].tolist()]
    last = every[-1] if every else 0
    domain = span if span is not None else (-0.5, last + 0.5)
    shown = rows[(rows["#"] > domain[0]) & (rows["#"] < domain[1])]
    x = [int(b) for b in shown["#"].tolist()]
    crowded = len(x) > CROWDED
    axis = x_axis(
        x,
        domain,
        title="segment (end: after the last one)",
        labelExpr=f"datum.value == {last} ? 'end' : datum.label",
    )
    half = 0.4 if not crowded else 0.45
    answers = {
        int(b): f"{a} ({'right' if r else 'wrong'})"
        for b, a, r in zip(rows["#"], rows["forced answer"], rows["forced right"], strict=True)
        if pd.notna(r)
    }
    data = [
        {
            "segment": b,
            "lo": b - half,
            "hi": b + half,
            "value": v,
            "low": low,
            "high": high,
            "trials": int(trials),
            "importance": i,
            "importance low": il,
            "importance high": ih,
            "colour": importance_colour(float("nan") if i is None else i),
            "outline": 2.5 if b == selected else 0.0 if crowded else 0.5,
            "forced": answers.get(b),
        }
        for b, v, low, high, trials, i, il, ih in zip(
            x,
            plain(shown["value"].tolist()),
            plain(shown["low"].tolist()),
            plain(shown["high"].tolist()),
            shown["trials"].tolist(),
            plain(shown["importance"].tolist()),
            plain(shown["importance low"].tolist()),
            plain(shown["importance high"].tolist()),
            strict=True,
        )
    ]
    ours = measure == OUR_IMPORTANCE
    value_axis = {
        "scale": {"domain": [-0.05, 1.05], "nice": False},
        "axis": {"title": "v_i", "minExtent": 44, "maxExtent": 44},
    }
    upper: list[Spec] = [
        _bars(
            "step value v_i",
            "value",
            axis,
            value_axis,
            {"field": "value", "type": "quantitative", "scale": SCORE_COLOURS, "legend": None},
            "v before segment",
        ),
        _interval("low", "high", axis, value_axis),
    ]
    forced = rows[rows["forced right"].notna() & rows["#"].isin(x)]
    if not forced.empty:
        upper.append(_forced_curve(forced, axis, value_axis))
    if labels:
        upper.append(
            label_marks({s: v for s, v in labels.items() if s in x}, -0.02, axis, value_axis)
        )
    value_tooltip = [
        {"field": "segment", "title": "before segment"},
        {"field": "value", "title": "v", "format": ".3f"},
        {"field": "low", "title": "95% low", "format": ".3f"},
        {"field": "high", "title": "95% high", "format": ".3f"},
        {"field": "trials", "title": "rollouts"},
        *_forced_tooltip(forced),
    ]
    upper = _pickable(upper, selected, axis, "boundary", value_tooltip, "before segment")
    importance_axis = {
        "scale": {"domain": [-1.05, 1.05], "nice": False} if ours else {"zero": True},
        "axis": {
            "title": "v_i+1 − v_i" if ours else one_line(measure, 28),
            "minExtent": 44,
            "maxExtent": 44,
        },
    }
    lower: list[Spec] = [
        _bars(
            f"importance {measure}",
            "importance",
            axis,
            importance_axis,
            {"field": "colour", "type": "nominal", "scale": None},
            "importance of segment",
        ),
    ]
    if ours:
        lower.append(_interval("importance low", "importance high", axis, importance_axis))
    importance_tooltip = [
        {"field": "segment", "title": "segment"},
        {
            "field": "importance",
            "title": "importance" if ours else measure,
            "format": "+.3f" if ours else ".4g",
        },
        *(
            [
                {"field": "importance low", "title": "95% low", "format": "+.3f"},
                {"field": "importance high", "title": "95% high", "format": "+.3f"},
            ]
            if ours
            else []
        ),
    ]
    lower = _pickable(lower, selected, axis, "step", importance_tooltip)

    def chart(layers: list[Spec], height: int) -> Spec:
        return {
            "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
            "usermeta": renderer(len(x)),
            "height": height,
            "data": {"values": data},
            "layer": layers,
            "resolve": {"scale": {"color": "independent"}},
        }

    return chart(upper, 230), chart(lower, 170)


def _pickable(
    layers: list[Spec],
    selected: int | None,
    x: Spec,
    name: str,
    tooltip: list[Spec],
    what: str = "segment",
) -> list[Spec]:
    """``layers``, the selected segment's line, and on top the clickable columns.

    The columns (``segment_columns``: selection ``name``, hover ``tooltip``, each described as
    "``what`` N") go last, over every other mark, so that a click anywhere over a segment picks it.
    """
    rule = [] if selected is None else [selected_rule(selected, x)]
    return [*layers, *rule, segment_columns(name, x, tooltip, what)]


def _bars(name: str, field: str, x: Spec, y: Spec, colour: Spec, what: str) -> Spec:
    """Bars of ``field`` from 0, coloured by ``colour``, the selected one outlined.

    Each bar is described for screen readers (and tests) as "``what`` N".
    """
    return {
        "name": name,
        "transform": [{"calculate": f"'{what} ' + datum.segment", "as": "bar"}],
        "mark": {"type": "bar", "stroke": SELECTED},
        "encoding": {
            "x": {**x, "field": "lo"},
            "x2": {"field": "hi"},
            "y": {**y, "field": field, "type": "quantitative"},
            "y2": {"datum": 0},
            "color": colour,
            "strokeWidth": {"field": "outline", "type": "quantitative", "scale": None},
            "description": {"field": "bar"},
        },
    }


def _forced_tooltip(forced: pd.DataFrame) -> list[Spec]:
    """The forced answer's line in a column's tooltip, when answers were forced."""
    if forced.empty:
        return []
    return [{"field": "forced", "title": "answer forced here"}]


def _interval(low: str, high: str, x: Spec, y: Spec) -> Spec:
    """The 95% intervals of the bars, as grey whiskers."""
    return {
        "name": "interval",
        "mark": {"type": "rule", "color": "#444", "strokeWidth": 1},
        "encoding": {
            "x": {**x, "field": "segment"},
            "y": {**y, "field": low, "type": "quantitative"},
            "y2": {"field": high},
        },
    }


def _forced_curve(forced: pd.DataFrame, x: Spec, y: Spec) -> Spec:
    """The forced-answer curve: 1 where the answer forced before a segment is right, 0 wrong."""
    right = [bool(r) for r in forced["forced right"]]
    points = [
        {
            "segment": int(b),
            "right": float(r),
            "answer": str(a),
            "verdict": "right" if r else "wrong",
        }
        for b, r, a in zip(forced["#"], right, forced["forced answer"], strict=True)
    ]
    encoding = {
        "x": {**x, "field": "segment"},
        "y": {**y, "field": "right", "type": "quantitative"},
    }
    verdicts = {"domain": ["right", "wrong"]}
    return {
        "name": "forced answer right (1) / wrong (0)",
        "data": {"values": points},
        "layer": [
            {
                "mark": {
                    "type": "line",
                    "interpolate": "step-after",
                    "color": "#555",
                    "strokeWidth": 1,
                    "strokeDash": [2, 2],
                },
                "encoding": encoding,
            },
            {
                "mark": {"type": "point", "size": 90, "filled": True},
                "encoding": {
                    **encoding,
                    "shape": {
                        "field": "verdict",
                        "scale": {**verdicts, "range": ["circle", "cross"]},
                        "legend": None,
                    },
                    "color": {
                        "field": "verdict",
                        "scale": {**verdicts, "range": ["#3cb43c", "#dc3c3c"]},
                        "legend": None,
                    },
                },
            },
        ],
    }
