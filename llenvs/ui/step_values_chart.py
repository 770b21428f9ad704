"""The step values panel's table, chart and labels: ``v_i`` and ``v_{i+1} - v_i``, with CIs.

``value_rows`` turns a ``StepAnalysis`` into one row per boundary (boundary i: before segment
i; the last row is the end of the trace); ``step_values_figure`` draws it as two bar charts
sharing the segment axis, in the segment chart's order and colours: step values coloured on
its red–amber–green PRM scale, importances like the segment table's rewards (green when the
step helped, red when it hurt), each bar with its 95% interval as an error bar, the selected
segment marked with the same dotted line, and the forced-answer curve (1: the answer forced
there is right, 0: wrong) over the values when it is stored, and the trace's human step labels
as small marks along the bottom of the values (``segment_chart.label_marks``). Bars carry their
segment index as ``x``, so ``segment_chart.selected_segment`` reads a click on them.

Example:
    >>> from llenvs.analysis.boundary_value import boundary_values
    >>> from llenvs.analysis.rollout import Rollout
    >>> from llenvs.analysis.step_analysis import StepAnalysis
    >>> from llenvs.analysis.step_importance import step_importances
    >>> rollouts = [Rollout(b, n, 0, n < 2 * b, "4", 1) for b in range(3) for n in range(4)]
    >>> values = boundary_values(rollouts, range(3))
    >>> analysis = StepAnalysis("t", {}, tuple(values), tuple(step_importances(values)), None,
    ...                         tuple(rollouts))
    >>> rows = value_rows(2, analysis)
    >>> rows["value"].tolist(), rows["importance"].tolist()[:2]
    ([0.0, 0.5, 1.0], [0.5, 0.5])
    >>> [trace.name for trace in step_values_figure(rows, selected=1).data]
    ['step value v_i', 'importance v_i+1 − v_i']

"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from llenvs.analysis.step_analysis import StepAnalysis
from llenvs.ui.segment_chart import label_marks
from llenvs.ui.segment_table import score_colour
from llenvs.ui.whitespace import one_line

__all__ = [
    "CROWDED",
    "OUR_IMPORTANCE",
    "SCORE_SCALE",
    "SELECTED",
    "describe_key",
    "duration",
    "importance_colour",
    "step_values_figure",
    "value_rows",
]

SCORE_SCALE = [[0, "#dc3c3c"], [0.5, "#dcbe3c"], [1, "#3cb43c"]]
"""The segment chart's colour scale for a score in [0, 1]: red, amber, green."""

SELECTED = "#1565c0"
"""The colour that marks the selected segment, as in the segment chart and table."""

OUR_IMPORTANCE = "v_i+1 − v_i"
"""The importance the engine computes from the values (the lower chart's default measure)."""

CROWDED = 80
"""Past this many bars in view, only the selected bar is outlined and the bars sit closer."""

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
    last segment) with its interval, its chance of having moved the value at all (``moved``)
    and its answer shift (``divergence``), and the answer forced
    before segment i with its verdict (``forced answer``, ``forced right``: None when none).

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
) -> go.Figure:
    """The figure of ``value_rows``: values above, importances below, ``selected`` marked.

    ``measure`` names the lower chart's bars (``rows["importance"]``): ours, ``v_{i+1} - v_i``
    on a fixed -1..1 axis, or another importance measure (an axis that fits its numbers, no
    interval). ``span``: the range of segments the x axis shows (every bar is drawn; the view
    pans and zooms to the others), all of them when None. Where many bars are in view, only the
    selected one is outlined. ``labels`` (segment -> -1, 0 or 1: the segment table's label
    column) are marked at their segments under the values.

    Example:
        >>> empty = StepAnalysis("t", {}, (), (), None, ())
        >>> figure = step_values_figure(value_rows(2, empty), selected=0)
        >>> [t.type for t in figure.data], list(figure.data[0].x)
        (['bar', 'bar'], [0, 1, 2])
        >>> zoomed = step_values_figure(value_rows(300, empty), 150, span=(120.5, 179.5))
        >>> zoomed.layout.xaxis2.range, len(zoomed.data[0].x)
        ((120.5, 179.5), 301)
        >>> marked = step_values_figure(value_rows(2, empty), labels={1: -1})
        >>> [(t.name, list(t.x)) for t in marked.data][-1]
        ('human label', [1])

    """
    x = rows["#"].tolist()
    values, importances = rows["value"], rows["importance"]
    figure = make_subplots(
        rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08, row_heights=[0.6, 0.4]
    )
    in_view = len(x) if span is None else span[1] - span[0]
    thin = 0.0 if in_view > CROWDED else 0.5
    outline = [2.5 if boundary == selected else thin for boundary in x]
    caps = 0 if in_view > CROWDED else 4
    ours = measure == OUR_IMPORTANCE
    figure.add_trace(
        go.Bar(
            x=x,
            y=_plain(values),
            name="step value v_i",
            marker={
                "color": values.fillna(0.5).tolist(),
                "colorscale": SCORE_SCALE,
                "cmin": 0,
                "cmax": 1,
                "line": {"width": outline, "color": SELECTED},
            },
            error_y={
                "type": "data",
                "symmetric": False,
                "array": (rows["high"] - values).fillna(0).tolist(),
                "arrayminus": (values - rows["low"]).fillna(0).tolist(),
                "color": "#444",
                "width": caps,
            },
            customdata=rows[["low", "high", "trials"]].values.tolist(),
            hovertemplate="before segment %{x}<br>v %{y:.3f} [%{customdata[0]:.3f}, "
            "%{customdata[1]:.3f}]<br>%{customdata[2]} rollouts<extra></extra>",
        ),
        row=1,
        col=1,
    )
    figure.add_trace(
        go.Bar(
            x=x,
            y=_plain(importances),
            name=f"importance {measure}",
            marker={
                "color": [importance_colour(v) for v in importances],
                "line": {"width": outline, "color": SELECTED},
            },
            error_y={
                "type": "data",
                "symmetric": False,
                "array": (rows["importance high"] - importances).fillna(0).tolist(),
                "arrayminus": (importances - rows["importance low"]).fillna(0).tolist(),
                "color": "#444",
                "width": caps,
                "visible": ours,
            },
            customdata=rows[["importance low", "importance high"]].fillna(0).values.tolist(),
            hovertemplate="segment %{x}<br>importance %{y:+.3f} [%{customdata[0]:+.3f}, "
            "%{customdata[1]:+.3f}]<extra></extra>"
            if ours
            else f"segment %{{x}}<br>{measure} %{{y:.4g}}<extra></extra>",
        ),
        row=2,
        col=1,
    )
    forced = rows[rows["forced right"].notna()]
    if not forced.empty:
        right = forced["forced right"].astype(bool)
        figure.add_trace(
            go.Scatter(
                x=forced["#"].tolist(),
                y=right.astype(float).tolist(),
                name="forced answer right (1) / wrong (0)",
                mode="lines+markers",
                line={"color": "#555", "width": 1, "dash": "dot", "shape": "hv"},
                marker={
                    "size": 10,
                    "symbol": ["circle" if r else "x" for r in right],
                    "color": ["#3cb43c" if r else "#dc3c3c" for r in right],
                },
                text=[str(a) for a in forced["forced answer"]],
                hovertemplate="forced before segment %{x}: %{text}<extra></extra>",
            ),
            row=1,
            col=1,
        )
    if labels:
        figure.add_trace(label_marks(labels, -0.02), row=1, col=1)
    if selected is not None:
        figure.add_vline(x=selected, line_width=2, line_dash="dot", line_color=SELECTED)
    last = x[-1] if x else 0
    figure.update_layout(
        height=420,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        legend={"orientation": "h", "y": 1.1},
        clickmode="event+select",
        hovermode="closest",
        bargap=0.25 if in_view <= CROWDED else 0.1,
    )
    figure.update_yaxes(title_text="v_i", range=[-0.05, 1.05], row=1, col=1)
    if ours:
        figure.update_yaxes(title_text="v_i+1 − v_i", range=[-1.05, 1.05], row=2, col=1)
    else:
        figure.update_yaxes(title_text=one_line(measure, 28), row=2, col=1)
    if span is not None:
        figure.update_xaxes(range=span, row=2, col=1)
    ticks = {
        "tickvals": x,
        "ticktext": [str(b) if b < last else "end" for b in x],
    }
    figure.update_xaxes(**(ticks if len(x) <= 16 else {}), row=2, col=1)
    figure.update_xaxes(title_text="segment (end: after the last one)", row=2, col=1)
    return figure


def describe_key(key: dict[str, Any]) -> str:
    """A stored key in words.

    Example:
        >>> describe_key({"model": "m", "temperature": 0.7, "top_p": 1.0, "max_tokens": 96,
        ...               "seed": 0})
        'm · temperature 0.7 · top-p 1 · 96 tokens a rollout · seed 0'
        >>> describe_key({"published": "thought-anchors", "model": "r1", "temperature": 0.6,
        ...               "top_p": 0.95})
        'published by thought-anchors · r1 · temperature 0.6 · top-p 0.95'

    """
    if "published" in key:
        return (
            f"published by {key['published']} · {key.get('model', '?')} · temperature "
            f"{key.get('temperature', '?'):g} · top-p {key.get('top_p', '?'):g}"
        )
    return (
        f"{key.get('model', '?')} · temperature {key.get('temperature', '?'):g} · "
        f"top-p {key.get('top_p', '?'):g} · {key.get('max_tokens', '?')} tokens a rollout · "
        f"seed {key.get('seed', '?')}"
    )


def duration(seconds: float | None) -> str:
    """Seconds in words.

    Example:
        >>> duration(None), duration(42.4), duration(130), duration(7200)
        ('unknown', '42 s', '2 min 10 s', '2 h 0 min')

    """
    if seconds is None:
        return "unknown"
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"


def _plain(column: pd.Series) -> list[float | None]:
    """A column as a plain list (None for NaN): the figure's JSON holds the numbers as such."""
    return [None if math.isnan(v) else float(v) for v in column]


def _number(value: float | None) -> float:
    return math.nan if value is None else float(value)
