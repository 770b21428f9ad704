r"""The chart and table of step values under several segmenters, on the response's characters.

Two rows share one x axis, the characters of the response: above, each segmenter's value
before each of its boundaries (a step line: the value holds until the next cut); below, the
importance of each step drawn across the characters it spans, so a move one segmenter finds in
a sentence and another in the paragraph holding it line up where they are in the text. Each
segmenter's largest move is shaded in its colour. ``pair_rows`` is the table of each pair's
agreement.

Example:
    >>> from llenvs.analysis import SegmenterComparison, SegmenterValues
    >>> c = SegmenterComparison("t", (SegmenterValues("sentence", (0, 3, 7), (0.2, 0.9, 1.0)),
    ...                               SegmenterValues("line", (0, 7), (0.2, 1.0))))
    >>> figure = segmenter_values_figure(c)
    >>> [t.name for t in figure.data]
    ['sentence', 'sentence', 'line', 'line']
    >>> pair_rows(c).iloc[0].to_dict()["same span"]
    'yes'

"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from llenvs.analysis import SegmenterComparison

__all__ = ["COLOURS", "pair_rows", "segmenter_values_figure"]

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd")
"""One colour per segmenter, in order."""


def segmenter_values_figure(comparison: SegmenterComparison) -> go.Figure:
    """Values (above) and importances (below) of every segmenter, on characters."""
    figure = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.08,
        subplot_titles=("value before each cut, v_i", "importance v_i+1 − v_i, across its step"),
    )
    for number, values in enumerate(comparison.segmenters):
        colour = COLOURS[number % len(COLOURS)]
        figure.add_trace(
            go.Scatter(
                x=list(values.cuts),
                y=list(values.values),
                name=values.spec,
                legendgroup=values.spec,
                mode="lines+markers",
                line={"shape": "hv", "color": colour},
                hovertemplate="character %{x}: v = %{y:.2f}<extra>" + values.spec + "</extra>",
            ),
            row=1,
            col=1,
        )
        moves = values.importances()
        figure.add_trace(
            go.Scatter(
                x=list(values.cuts),
                y=[*moves, moves[-1] if moves else None],
                name=values.spec,
                legendgroup=values.spec,
                showlegend=False,
                mode="lines",
                line={"shape": "hv", "color": colour},
                hovertemplate="from character %{x}: %{y:+.2f}<extra>" + values.spec + "</extra>",
            ),
            row=2,
            col=1,
        )
        span = values.largest()
        if span is not None:
            figure.add_vrect(
                x0=span[0], x1=span[1], fillcolor=colour, opacity=0.12, line_width=0, row=2, col=1
            )
    figure.update_xaxes(title_text="characters of the response", row=2, col=1)
    figure.update_yaxes(range=[-0.02, 1.02], row=1, col=1)
    figure.update_layout(height=480, margin={"t": 40, "b": 40}, legend={"orientation": "h"})
    return figure


def pair_rows(comparison: SegmenterComparison) -> pd.DataFrame:
    """One row per pair: same span of the largest move, each one's width, Kendall τ."""
    rows = []
    for pair in comparison.pairs():
        rows.append(
            {
                "segmenters": f"{pair.first} vs {pair.second}",
                "same span": {True: "yes", False: "no", None: "—"}[pair.same_span],
                "widths (characters)": " / ".join(
                    "—" if w is None else str(w) for w in pair.widths
                ),
                "Kendall τ": None if pair.tau is None else round(pair.tau, 3),
            }
        )
    return pd.DataFrame(
        rows, columns=["segmenters", "same span", "widths (characters)", "Kendall τ"]
    )
