"""Which step led to which, as two heatmaps (plotly): the step matrix and attention suppression.

``matrix_figure``: row i, column j, how much keeping step i changes how often step j's content
comes in a rollout (``llenvs.analysis.instruments.StepMatrix``), from −1 (blue) to +1 (red),
blank where j <= i or a boundary has no rollouts. Hovering a cell shows its value, its 95%
interval and the counts behind it. ``suppression_figure``: the same grid for the KL divergence
of step j's next-token distributions when step i is masked (``Suppression``), coloured on a log
scale (KLs span orders of magnitude), the KL itself in the hover. In both, the selected
segment's row and column are outlined.

Example:
    >>> from llenvs.analysis.instruments import MatrixCell, StepMatrix
    >>> matrix = StepMatrix(3, "lexical", 0.8, (MatrixCell(0, 2, (0, 4), (4, 4)),))
    >>> figure = matrix_figure(matrix, selected=2)
    >>> figure.data[0].z[0][2], len(figure.layout.shapes)
    (1.0, 2)
    >>> from llenvs.analysis.instruments import Suppression
    >>> kl = ((None, 0.01, 1.0), (None, None, 0.1), (None, None, None))
    >>> suppression_figure(Suppression("m", 3, 12, kl, ())).data[0].z[0][1:]
    [-2.0, 0.0]

"""

from __future__ import annotations

import math

import plotly.graph_objects as go

from llenvs.analysis.instruments import StepMatrix, Suppression

__all__ = ["matrix_figure", "suppression_figure"]


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
    _outline(figure, n, selected)
    figure.update_layout(
        height=420,
        margin={"l": 40, "r": 10, "t": 30, "b": 40},
        xaxis={"title": {"text": "later step j"}},
        yaxis={"title": {"text": "step i kept"}, "autorange": "reversed"},
        title={"text": "Which step led to which", "font": {"size": 14}},
    )
    return figure


def suppression_figure(suppression: Suppression, selected: int | None = None) -> go.Figure:
    """The heatmap of ``suppression``'s KL (log10 colours), the ``selected`` step outlined."""
    n = suppression.steps
    z = [[math.nan] * n for _ in range(n)]
    text = [[""] * n for _ in range(n)]
    for i, row in enumerate(suppression.kl):
        for j, value in enumerate(row):
            if value is not None:
                z[i][j] = math.log10(max(value, 1e-6))
                text[i][j] = f"{value:.4f}"
    figure = go.Figure(
        go.Heatmap(
            z=z,
            x=list(range(n)),
            y=list(range(n)),
            text=text,
            colorscale="Viridis",
            colorbar={"title": {"text": "log10 KL"}},
            hovertemplate="step %{y} masked → step %{x}: KL %{text} nats<extra></extra>",
            hoverongaps=False,
        )
    )
    _outline(figure, n, selected)
    figure.update_layout(
        height=420,
        margin={"l": 40, "r": 10, "t": 30, "b": 40},
        xaxis={"title": {"text": "later step j"}},
        yaxis={"title": {"text": "step i masked"}, "autorange": "reversed"},
        title={"text": f"Inside {suppression.model}: attention suppression", "font": {"size": 14}},
    )
    return figure


def _outline(figure: go.Figure, n: int, selected: int | None) -> None:
    """Outline the ``selected`` step's row and column (nothing when none is selected)."""
    if selected is None or not 0 <= selected < n:
        return
    line = {"color": "black", "width": 2}
    figure.add_shape(
        type="rect", x0=-0.5, x1=n - 0.5, y0=selected - 0.5, y1=selected + 0.5, line=line
    )
    figure.add_shape(
        type="rect", x0=selected - 0.5, x1=selected + 0.5, y0=-0.5, y1=n - 0.5, line=line
    )
