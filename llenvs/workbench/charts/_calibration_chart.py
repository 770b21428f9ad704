"""The calibration plot of a PRM against a labeller: score bins, share of steps labelled right.

One bar per non-empty score bin (``llenvs.rewards.agreement``), at the bin's middle and
as wide as the bin, as high as the share of its labelled steps labelled right (+1), with the
bin's step count written on it; the diagonal is where a calibrated PRM's bars would end (a
step scored 0.8 right four times in five).

Example:
    >>> from llenvs.rewards.agreement._calibration_bin import CalibrationBin
    >>> bins = (CalibrationBin(0.0, 0.5, 4, 1, 3), CalibrationBin(0.5, 1.0, 0, 0, 0))
    >>> figure = calibration_figure(bins)
    >>> [trace.name for trace in figure.data], list(figure.data[0].text)
    (['share labelled right', 'calibrated'], ['4 steps'])

"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from llenvs.rewards.agreement import CalibrationBin

__all__ = ["calibration_figure"]


def calibration_figure(bins: Sequence[CalibrationBin]) -> go.Figure:
    """Bars of the share of steps labelled right per score bin (empty bins left out).

    Example:
        >>> calibration_figure(()).layout.xaxis.title.text
        'PRM score'

    """
    shown = [b for b in bins if b.steps]
    figure = go.Figure()
    figure.add_bar(
        name="share labelled right",
        x=[(b.low + b.high) / 2 for b in shown],
        y=[b.share_correct for b in shown],
        width=[(b.high - b.low) * 0.9 for b in shown],
        text=[f"{b.steps} step{'' if b.steps == 1 else 's'}" for b in shown],
        textposition="outside",
        customdata=[[f"{b.low:.2f}", f"{b.high:.2f}", b.steps, b.correct, b.wrong] for b in shown],
        hovertemplate=(
            "score %{customdata[0]}–%{customdata[1]}<br>%{customdata[2]} labelled steps: "
            "%{customdata[3]} right, %{customdata[4]} wrong<br>share right %{y:.3f}"
            "<extra></extra>"
        ),
        marker_color="rgb(90, 130, 200)",
    )
    figure.add_scatter(
        name="calibrated",
        x=[0.0, 1.0],
        y=[0.0, 1.0],
        mode="lines",
        line={"dash": "dot", "color": "grey"},
        hoverinfo="skip",
    )
    figure.update_layout(
        height=320,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        showlegend=False,
        xaxis={"title": {"text": "PRM score"}, "range": [0, 1]},
        yaxis={"title": {"text": "share of steps labelled right"}, "range": [0, 1.15]},
    )
    return figure
