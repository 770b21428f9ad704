"""The trace view's chart: per-step PRM score and cumulative reward by segment, and labels.

Points carry their segment index as ``x``, so clicking one selects that segment. The chart
always shows every segment: past ``SVG_POINTS`` points it draws with WebGL (``Scattergl``, small
markers, PRM scores unjoined), which stays fast at tens of thousands of points, and it shades
the window of rows the table beside it shows. Human step labels (the table's ``label`` column)
are small marks along the bottom of the PRM axis, coloured as the table's rows: red wrong,
grey neutral, green correct.

Example:
    >>> import pandas as pd
    >>> table = pd.DataFrame({"#": [0, 1], "PRM": [1.0, 0.0], "cumulative": [0.0, 1.0]})
    >>> [trace.name for trace in segment_figure(table, selected=1).data]
    ['PRM score', 'cumulative reward']

"""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd
import plotly.graph_objects as go

from llenvs.ui.segment_table import LABEL_COLOURS, label_values

__all__ = [
    "LABEL_MARKS",
    "SVG_POINTS",
    "label_marks",
    "segment_figure",
    "selected_segment",
]

SVG_POINTS = 1000
"""The most segments drawn as SVG points (each one a DOM element); more are drawn with WebGL."""

LABEL_MARKS = "human label"
"""The name of the label marks' trace (in the legend)."""

_MARK_COLOURS = {label: f"rgb({r}, {g}, {b})" for label, (r, g, b) in LABEL_COLOURS.items()}
_MARK_SYMBOLS = {-1: "x", 0: "line-ew-open", 1: "triangle-up"}
_MARK_WORDS = {-1: "-1 wrong", 0: "0 neutral", 1: "+1 correct"}


def label_marks(
    labels: Mapping[int, int], y: float, *, large: bool = False, **where: str
) -> go.Scatter | go.Scattergl:
    """Small marks at the labelled segments of ``labels`` (segment -> -1, 0 or 1), at height ``y``.

    Clicking one reads like a point of the chart (its ``x`` is the segment); ``where`` places
    it on other axes (``xaxis``, ``yaxis``) of a figure with several.

    Example:
        >>> marks = label_marks({3: -1, 5: 1}, -0.03)
        >>> list(marks.x), list(marks.marker.color)
        ([3, 5], ['rgb(220, 60, 60)', 'rgb(60, 180, 60)'])

    """
    segments = sorted(labels)
    scatter = go.Scattergl if large else go.Scatter
    return scatter(
        x=segments,
        y=[y] * len(segments),
        name=LABEL_MARKS,
        mode="markers",
        marker={
            "size": 6 if large else 9,
            "symbol": [_MARK_SYMBOLS[labels[s]] for s in segments],
            "color": [_MARK_COLOURS[labels[s]] for s in segments],
            "line": {"width": 2, "color": [_MARK_COLOURS[labels[s]] for s in segments]},
        },
        text=[_MARK_WORDS[labels[s]] for s in segments],
        hovertemplate="segment %{x}<br>labelled %{text}<extra></extra>",
        **where,
    )


def segment_figure(
    table: pd.DataFrame, selected: int | None = None, window: range | None = None
) -> go.Figure:
    """The figure of a segment table (see ``segment_table``); ``selected`` is marked.

    The PRM score (left axis, 0..1, coloured red to green) is drawn when some segment has one;
    the cumulative reward (right axis) always. ``window``, the segments the table shows, is
    shaded when it is not all of them. The labels of the table's ``label`` column, when it has
    any, are marks under the PRM scores (``label_marks``).

    Example:
        >>> t = pd.DataFrame({"#": [0], "PRM": [float("nan")], "cumulative": [0.0]})
        >>> [trace.name for trace in segment_figure(t).data]
        ['cumulative reward']
        >>> big = pd.DataFrame({"#": range(5000), "PRM": 0.5, "cumulative": 0.0})
        >>> figure = segment_figure(big, selected=300, window=range(200, 400))
        >>> {trace.type for trace in figure.data}, len(figure.layout.shapes)
        ({'scattergl'}, 2)
        >>> labelled = t.assign(label=["-1"])
        >>> [(trace.name, list(trace.x)) for trace in segment_figure(labelled).data][-1]
        ('human label', [0])

    """
    figure = go.Figure()
    x = table["#"].tolist()
    large = len(x) > SVG_POINTS
    scatter = go.Scattergl if large else go.Scatter
    if table["PRM"].notna().any():
        figure.add_trace(
            scatter(
                x=x,
                y=table["PRM"],
                name="PRM score",
                mode="markers" if large else "lines+markers",
                marker={
                    "size": 5 if large else 11,
                    "color": table["PRM"].fillna(0.5),
                    "colorscale": [[0, "#dc3c3c"], [0.5, "#dcbe3c"], [1, "#3cb43c"]],
                    "cmin": 0,
                    "cmax": 1,
                    "line": {"width": 0 if large else 1, "color": "#444"},
                },
                line={"color": "#999", "width": 1},
                hovertemplate="segment %{x}<br>PRM %{y:.3f}<extra></extra>",
            )
        )
    figure.add_trace(
        scatter(
            x=x,
            y=table["cumulative"],
            name="cumulative reward",
            mode="lines+markers",
            yaxis="y2",
            marker={"size": 3 if large else 7, "color": "#1f77b4"},
            line={"color": "#1f77b4", "width": 2, "shape": "hv"},
            hovertemplate="segment %{x}<br>cumulative reward %{y:.3g}<extra></extra>",
        )
    )
    labels = label_values(table)
    if labels:
        figure.add_trace(label_marks(labels, -0.02, large=large))
    if window is not None and len(window) < len(x):
        figure.add_vrect(
            x0=window.start - 0.5,
            x1=window.stop - 0.5,
            fillcolor="#1565c0",
            opacity=0.08,
            line_width=0,
            layer="below",
        )
    if selected is not None:
        figure.add_vline(x=selected, line_width=2, line_dash="dot", line_color="#1565c0")
    figure.update_layout(
        height=360,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis={"title": "segment", "dtick": 1 if len(x) <= 15 else None},
        yaxis={"title": "PRM score", "range": [-0.05, 1.05]},
        yaxis2={
            "title": "cumulative reward",
            "overlaying": "y",
            "side": "right",
            **_reward_axis(table["cumulative"]),
        },
        legend={"orientation": "h", "y": 1.12},
        clickmode="event+select",
        hovermode="closest",
    )
    return figure


def _reward_axis(cumulative: pd.Series) -> dict[str, object]:
    """A range with whole ticks when the cumulative reward never moves (all rewards 0, say).

    Plotly pads a flat line to odd fractions (-0.909 … 0.909); a flat value ``v`` gets the
    range ``v - 1 .. v + 1`` with ticks at whole numbers instead.

    Example:
        >>> _reward_axis(pd.Series([0.0, 0.0]))
        {'range': [-1.0, 1.0], 'dtick': 1}
        >>> _reward_axis(pd.Series([0.0, 2.0]))
        {}

    """
    values = cumulative.dropna()
    if values.empty or values.min() != values.max():
        return {}
    flat = float(values.iloc[0])
    return {"range": [flat - 1.0, flat + 1.0], "dtick": 1}


def selected_segment(selection: object) -> int | None:
    """The segment index of the first clicked point of a chart selection, or None.

    Example:
        >>> selected_segment({"selection": {"points": [{"x": 3, "y": 0.5}]}})
        3
        >>> selected_segment({"selection": {"points": []}}) is None
        True

    """
    try:
        points = selection["selection"]["points"]  # type: ignore[index]
        value = points[0]["x"]
    except (KeyError, IndexError, TypeError):
        return None
    if isinstance(value, int | float) and not math.isnan(value):
        return int(value)
    return None
