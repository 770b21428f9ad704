"""The steerability map as a chart: flip and answer-change rates against relative position.

One point per non-empty bin of the map (``llenvs.experiments.MapBin``), at the bin's middle,
for each rate, with its Wilson 95% interval as error bars; hovering names the bin, its
branches and its counts.

Example:
    >>> from llenvs.experiments import MapBin
    >>> bins = (MapBin(0.0, 0.5, 4, 1, 1, 0, 2), MapBin(0.5, 1.0, 0, 0, 0, 0, 0))
    >>> figure = steerability_figure(bins)
    >>> [trace.name for trace in figure.data], list(figure.data[0].y)
    (['flip rate', 'answer-change rate'], [0.25])

"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from llenvs.experiments import MapBin

__all__ = ["steerability_figure"]


def steerability_figure(bins: Sequence[MapBin], *, x_title: str = "relative position") -> go.Figure:
    """Both rates per bin with interval bars (empty bins left out).

    Example:
        >>> steerability_figure(()).layout.xaxis.title.text
        'relative position'

    """
    shown = [b for b in bins if b.branches]
    figure = go.Figure()
    middles = [(b.low + b.high) / 2 for b in shown]
    for name, rate, interval, color in (
        ("flip rate", "flip_rate", "flip_interval", "rgb(200, 80, 60)"),
        ("answer-change rate", "answer_change_rate", "answer_change_interval", "rgb(70, 120, 200)"),
    ):
        values = [float(getattr(b, rate)) for b in shown]
        low = [getattr(b, interval).low for b in shown]
        high = [getattr(b, interval).high for b in shown]
        figure.add_scatter(
            name=name,
            x=middles,
            y=values,
            mode="lines+markers",
            error_y={
                "type": "data",
                "symmetric": False,
                "array": [h - v for h, v in zip(high, values, strict=True)],
                "arrayminus": [v - lo for lo, v in zip(low, values, strict=True)],
            },
            customdata=[
                [f"{b.low:.2f}", f"{b.high:.2f}", b.branches, lo, h]
                for b, lo, h in zip(shown, low, high, strict=True)
            ],
            hovertemplate=(
                f"{name} %{{y:.3f}} [95% %{{customdata[3]:.3f}}, %{{customdata[4]:.3f}}]<br>"
                "position %{customdata[0]}–%{customdata[1]}, %{customdata[2]} branches"
                "<extra></extra>"
            ),
            marker_color=color,
        )
    figure.update_layout(
        height=340,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis={"title": {"text": x_title}, "range": [0, 1]},
        yaxis={"title": {"text": "rate (95% interval)"}, "range": [0, 1.05]},
    )
    return figure
