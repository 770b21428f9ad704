"""The trace view's chart: per-step PRM score and cumulative reward by segment, and labels.

The charts of Browse are Vega-Lite specs (``st.vega_lite_chart``): Vega's code is a fifth of
Plotly's, which the browser took two seconds to load before it drew any of the page. Each
segment has a clickable column the height of the plot (``columns``), so a click anywhere over
a segment selects it (``selected_segment`` reads the click). Up to ``SVG_POINTS`` segments the
chart is drawn as SVG (every mark an element, named for screen readers); past it on a canvas,
with small points and the PRM scores unjoined. The window of rows the table beside it shows is
shaded; human step labels (the table's ``label`` column) are small marks along the bottom of
the PRM axis, coloured as the table's rows: red wrong, grey neutral, green correct.

Example:
    >>> import pandas as pd
    >>> table = pd.DataFrame({"#": [0, 1], "PRM": [1.0, 0.0], "cumulative": [0.0, 1.0]})
    >>> layer_names(segment_figure(table, selected=1))
    ['PRM score', 'selected segment', 'cumulative reward', 'segments']

"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from llenvs.workbench.browse import LABEL_COLOURS, label_values

__all__ = [
    "LABEL_MARKS",
    "SELECTED",
    "SVG_POINTS",
    "label_marks",
    "layer_names",
    "plain",
    "segment_columns",
    "segment_figure",
    "selected_rule",
    "selected_segment",
    "x_axis",
]

Spec = dict[str, Any]

SVG_POINTS = 1000
"""The most segments drawn as SVG (each mark a DOM element); more are drawn on a canvas."""

LABEL_MARKS = "human label"
"""The name of the label marks' layer (and the title of their legend)."""

SELECTED = "#1565c0"
"""The colour that marks the selected segment, in the charts and the table."""

SCORE_COLOURS = {"domain": [0, 0.5, 1], "range": ["#dc3c3c", "#dcbe3c", "#3cb43c"]}
"""A score in [0, 1] as a colour: red, amber, green (the table's score colours)."""

_MARK_COLOURS = {label: f"rgb({r}, {g}, {b})" for label, (r, g, b) in LABEL_COLOURS.items()}
_MARK_SHAPES = {-1: "cross", 0: "stroke", 1: "triangle-up"}
_MARK_WORDS = {-1: "-1 wrong", 0: "0 neutral", 1: "+1 correct"}
_REWARD = "#1f77b4"


def plain(values: Iterable[object]) -> list[Any]:
    """``values`` with NaN as None: a spec is JSON, which has no NaN.

    Example:
        >>> plain([1.0, float("nan"), "a"])
        [1.0, None, 'a']

    """
    return [None if isinstance(v, float) and math.isnan(v) else v for v in values]


def renderer(points: int) -> Spec:
    """How Vega draws a chart of ``points`` segments: SVG up to ``SVG_POINTS``, else canvas."""
    return {"embedOptions": {"renderer": "svg" if points <= SVG_POINTS else "canvas"}}


def x_axis(segments: list[int], domain: tuple[float, float], **axis: Any) -> Spec:
    """The segment axis over ``domain``, whole ticks (each of them for a short trace)."""
    ticks = {"values": segments} if len(segments) <= 16 else {"tickMinStep": 1}
    return {
        "type": "quantitative",
        "scale": {"domain": list(domain), "nice": False, "zero": False},
        "axis": {"title": "segment", "format": "d", **ticks, **axis},
    }


def segment_columns(name: str, x: Spec, tooltip: list[Spec], what: str = "segment") -> Spec:
    """A clickable, invisible column over each segment of the chart's data: selection ``name``.

    Drawn over the other marks, so a click anywhere over a segment selects it, and hovering
    shows ``tooltip`` (the segment's numbers). Each column is described for screen readers
    (and tests) as "``what`` N": "segment 3", "before segment 3".
    """
    return {
        "name": "segments",
        "transform": [
            {"calculate": "datum.segment - 0.5", "as": "column start"},
            {"calculate": "datum.segment + 0.5", "as": "column end"},
            {"calculate": f"'{what} ' + datum.segment", "as": "column"},
        ],
        "mark": {"type": "rect", "fill": "#000", "fillOpacity": 0, "cursor": "pointer"},
        "encoding": {
            "x": {**x, "field": "column start"},
            "x2": {"field": "column end"},
            "tooltip": tooltip,
            "description": {"field": "column"},
        },
        "params": [{"name": name, "select": {"type": "point", "fields": ["segment"]}}],
    }


def selected_rule(selected: int, x: Spec) -> Spec:
    """The dotted vertical line at the selected segment."""
    return {
        "name": "selected segment",
        "data": {"values": [{"segment": selected}]},
        "mark": {"type": "rule", "color": SELECTED, "strokeWidth": 2, "strokeDash": [3, 3]},
        "encoding": {"x": {**x, "field": "segment"}},
    }


def label_marks(labels: Mapping[int, int], y: float, x: Spec, y_axis: Spec) -> Spec:
    """Small marks at the labelled segments of ``labels`` (segment -> -1, 0 or 1), at ``y``.

    Red crosses wrong, grey dashes neutral, green triangles correct, with a legend.

    Example:
        >>> marks = label_marks({3: -1, 5: 1}, -0.02, x_axis([3, 5], (0, 6)), {})
        >>> [(m["segment"], m["label"]) for m in marks["data"]["values"]]
        [(3, '-1 wrong'), (5, '+1 correct')]

    """
    words = [_MARK_WORDS[label] for label in (-1, 0, 1)]
    legend = {"title": LABEL_MARKS, "orient": "bottom"}
    return {
        "name": LABEL_MARKS,
        "data": {
            "values": [
                {"segment": s, "y": y, "label": _MARK_WORDS[labels[s]]} for s in sorted(labels)
            ]
        },
        "mark": {"type": "point", "size": 60, "strokeWidth": 2, "filled": False},
        "encoding": {
            "x": {**x, "field": "segment"},
            "y": {**y_axis, "field": "y", "type": "quantitative"},
            "shape": {
                "field": "label",
                "scale": {"domain": words, "range": [_MARK_SHAPES[v] for v in (-1, 0, 1)]},
                "legend": legend,
            },
            "color": {
                "field": "label",
                "scale": {"domain": words, "range": [_MARK_COLOURS[v] for v in (-1, 0, 1)]},
                "legend": legend,
            },
        },
    }


def segment_figure(
    table: pd.DataFrame, selected: int | None = None, window: range | None = None
) -> Spec:
    """The chart of a segment table (see ``segment_table``): a Vega-Lite spec.

    The PRM score (left axis, 0..1, coloured red to green) is drawn when some segment has one;
    the cumulative reward (right axis) always. ``window``, the segments the table shows, is
    shaded when it is not all of them. The labels of the table's ``label`` column, when it has
    any, are marks under the PRM scores (``label_marks``).

    Example:
        >>> t = pd.DataFrame({"#": [0], "PRM": [float("nan")], "cumulative": [0.0]})
        >>> layer_names(segment_figure(t))
        ['cumulative reward', 'segments']
        >>> big = pd.DataFrame({"#": range(5000), "PRM": 0.5, "cumulative": 0.0})
        >>> spec = segment_figure(big, selected=300, window=range(200, 400))
        >>> spec["usermeta"]["embedOptions"]["renderer"], layer_names(spec)[:2]
        ('canvas', ['window', 'PRM score'])
        >>> layer_names(segment_figure(t.assign(label=["-1"])))[0]
        'human label'

    """
    x = [int(s) for s in table["#"].tolist()]
    large = len(x) > SVG_POINTS
    domain = (x[0] - 0.5, x[-1] + 0.5) if x else (-0.5, 0.5)
    axis = x_axis(x, domain)
    prm_axis = {"scale": {"domain": [-0.05, 1.05], "nice": False}, "axis": {"title": "PRM score"}}
    rows = [
        {"segment": s, "PRM": p, "cumulative": c}
        for s, p, c in zip(
            x, plain(table["PRM"].tolist()), plain(table["cumulative"].tolist()), strict=True
        )
    ]
    left: list[Spec] = []
    if window is not None and len(window) < len(x):
        left.append(
            {
                "name": "window",
                "data": {"values": [{"lo": window.start - 0.5, "hi": window.stop - 0.5}]},
                "mark": {"type": "rect", "color": SELECTED, "opacity": 0.08},
                "encoding": {"x": {**axis, "field": "lo"}, "x2": {"field": "hi"}},
            }
        )
    if table["PRM"].notna().any():
        left.append(_prm_layer(rows, axis, prm_axis, large=large))
    labels = label_values(table)
    if labels:
        left.append(label_marks(labels, -0.02, axis, prm_axis))
    if selected is not None:
        left.append(selected_rule(selected, axis))
    reward = {
        "name": "cumulative reward",
        "data": {"values": rows},
        "mark": {
            "type": "line",
            "interpolate": "step-after",
            "color": _REWARD,
            "strokeWidth": 2,
            "point": {"color": _REWARD, "size": 10 if large else 40},
        },
        "encoding": {
            "x": {**axis, "field": "segment"},
            "y": {
                "field": "cumulative",
                "type": "quantitative",
                "scale": {"zero": False, **_reward_domain(table["cumulative"])},
                "axis": {"title": "cumulative reward", "orient": "right", "tickMinStep": 1},
            },
        },
    }
    labelled = [
        {**row, "label": _MARK_WORDS[labels[row["segment"]]] if row["segment"] in labels else ""}
        for row in rows
    ]
    tooltip = [
        {"field": "segment", "title": "segment"},
        {"field": "PRM", "title": "PRM", "format": ".3f"},
        {"field": "cumulative", "title": "cumulative reward", "format": ".3g"},
        *([{"field": "label", "title": "labelled"}] if labels else []),
    ]
    picker = {**segment_columns("segment", axis, tooltip), "data": {"values": labelled}}
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "usermeta": renderer(len(x)),
        "height": 330,
        "layer": [
            *([{"layer": left, "resolve": {"scale": {"color": "independent"}}}] if left else []),
            reward,
            picker,
        ],
        "resolve": {"scale": {"y": "independent", "color": "independent"}},
    }


def _prm_layer(rows: list[Spec], x: Spec, y: Spec, *, large: bool) -> Spec:
    """The PRM scores: points coloured red to green, joined by a grey line unless ``large``."""
    encoding = {"x": {**x, "field": "segment"}, "y": {**y, "field": "PRM", "type": "quantitative"}}
    points = {
        "mark": {
            "type": "point",
            "filled": True,
            "size": 20 if large else 90,
            "stroke": "#444",
            "strokeWidth": 0 if large else 1,
        },
        "encoding": {
            **encoding,
            "color": {
                "field": "PRM",
                "type": "quantitative",
                "scale": SCORE_COLOURS,
                "legend": None,
            },
        },
    }
    line = {"mark": {"type": "line", "color": "#999", "strokeWidth": 1}, "encoding": encoding}
    return {
        "name": "PRM score",
        "data": {"values": rows},
        "layer": [points] if large else [line, points],
    }


def _reward_domain(cumulative: pd.Series) -> Spec:
    """A domain around a cumulative reward that never moves (all rewards 0, say).

    Example:
        >>> _reward_domain(pd.Series([0.0, 0.0]))
        {'domain': [-1.0, 1.0]}
        >>> _reward_domain(pd.Series([0.0, 2.0]))
        {}

    """
    values = cumulative.dropna()
    if values.empty or values.min() != values.max():
        return {}
    flat = float(values.iloc[0])
    return {"domain": [flat - 1.0, flat + 1.0]}


def layer_names(spec: Spec) -> list[str]:
    """The names of a spec's layers, nested layers in order (unnamed groups left out).

    Example:
        >>> layer_names({"layer": [{"layer": [{"name": "a"}]}, {"name": "b"}]})
        ['a', 'b']

    """
    names = [spec["name"]] if "name" in spec and "layer" not in spec else []
    for layer in spec.get("layer", ()):
        if "name" in layer and "layer" in layer:
            names.append(layer["name"])
        else:
            names.extend(layer_names(layer))
    return names


def selected_segment(selection: object) -> int | None:
    """The segment of a click on a chart (``st.vega_lite_chart``'s event), or None.

    Example:
        >>> selected_segment({"selection": {"segment": [{"segment": 3}]}})
        3
        >>> selected_segment({"selection": {"segment": []}}) is None
        True

    """
    try:
        chosen = selection["selection"]  # type: ignore[index]
        points = [point for picked in chosen.values() for point in picked]
    except (KeyError, TypeError, AttributeError):
        return None
    for point in points:
        value = point.get("segment") if isinstance(point, dict) else None
        if isinstance(value, int | float) and not math.isnan(value):
            return int(value)
    return None
