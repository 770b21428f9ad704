"""The step-to-step matrix as a heatmap (plotly): which step led to which.

Row i, column j: how much keeping step i changes how often step j's content comes in a rollout
(``llenvs.analysis.instruments.StepMatrix``), from −1 (blue) to +1 (red), blank where j <= i or
a boundary has no rollouts. Hovering a cell shows its value, its 95% interval and the counts
behind it; the selected segment's row and column are outlined.

Example:
    >>> from llenvs.analysis.instruments import MatrixCell, StepMatrix
    >>> matrix = StepMatrix(3, "lexical", 0.8, (MatrixCell(0, 2, (0, 4), (4, 4)),))
    >>> figure = matrix_figure(matrix, selected=2)
    >>> figure.data[0].z[0][2], len(figure.layout.shapes)
    (1.0, 2)

"""

from __future__ import annotations

import math

import plotly.graph_objects as go

from llenvs.analysis.instruments import StepMatrix

__all__ = ["matrix_figure"]


def matrix_figure(matrix: StepMatrix, selected: int | None = None) -> go.Figure:
    """The heatmap of ``matrix``, the ``selected`` step's row and column outlined."""
    n = matrix.steps
    z = [[math.nan] * n for _ in range(n)]
    text = [[""] * n for _ in range(n)]
    for cell in matrix.cells:
        low, high = cell.interval.low, cell.interval.high
        z[cell.source][cell.target] = cell.value
        text[cell.source][cell.target] = (
            f"[{low:.2f}, {high:.2f}]; content in {cell.before[0]}/{cell.before[1]} rollouts "
            f"without step {cell.source}, {cell.after[0]}/{cell.after[1]} with it"
        )
    figure = go.Figure(
        go.Heatmap(
            z=z,
            x=list(range(n)),
            y=list(range(n)),
            text=text,
            zmin=-1.0,
            zmax=1.0,
            zmid=0.0,
            colorscale="RdBu_r",
            colorbar={"title": {"text": "Δ share"}},
            hovertemplate="step %{y} → step %{x}: %{z:+.2f} %{text}<extra></extra>",
            hoverongaps=False,
        )
    )
    if selected is not None and 0 <= selected < n:
        line = {"color": "black", "width": 2}
        figure.add_shape(
            type="rect", x0=-0.5, x1=n - 0.5, y0=selected - 0.5, y1=selected + 0.5, line=line
        )
        figure.add_shape(
            type="rect", x0=selected - 0.5, x1=selected + 0.5, y0=-0.5, y1=n - 0.5, line=line
        )
    figure.update_layout(
        height=420,
        margin={"l": 40, "r": 10, "t": 30, "b": 40},
        xaxis={"title": {"text": "later step j"}},
        yaxis={"title": {"text": "step i kept"}, "autorange": "reversed"},
        title={"text": "Which step led to which", "font": {"size": 14}},
    )
    return figure
