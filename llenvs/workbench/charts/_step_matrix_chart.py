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
from typing import Any

import plotly.graph_objects as go

from llenvs.analysis.instruments import StepMatrix, Suppression

__all__ = ["matrix_figure", "suppression_figure"]


def matrix_figure(matrix: StepMatrix, selected: int | None = None) -> go.Figure:
    """The heatmap of ``matrix``, the ``selected`` step's row and column outlined."""
    grid = _Grid(matrix.steps)
    for cell in matrix.cells:
        low, high = cell.interval.low, cell.interval.high
        grid.put(
            cell.source,
            cell.target,
            cell.value,
            f"[{low:.2f}, {high:.2f}]; content in {cell.before[0]}/{cell.before[1]} rollouts "
            f"without step {cell.source}, {cell.after[0]}/{cell.after[1]} with it",
        )
    heat = {"zmin": -1.0, "zmax": 1.0, "zmid": 0.0, "colorscale": "RdBu_r"}
    return grid.figure(
        selected,
        heat | {"colorbar": {"title": {"text": "Δ share"}}},
        "step %{y} → step %{x}: %{z:+.2f} %{text}<extra></extra>",
        ("step i kept", "Which step led to which"),
    )


def suppression_figure(suppression: Suppression, selected: int | None = None) -> go.Figure:
    """The heatmap of ``suppression``'s KL (log10 colours), the ``selected`` step outlined."""
    grid = _Grid(suppression.steps)
    for i, row in enumerate(suppression.kl):
        for j, value in enumerate(row):
            if value is not None:
                grid.put(i, j, math.log10(max(value, 1e-6)), f"{value:.4f}")
    return grid.figure(
        selected,
        {"colorscale": "Viridis", "colorbar": {"title": {"text": "log10 KL"}}},
        "step %{y} masked → step %{x}: KL %{text} nats<extra></extra>",
        ("step i masked", f"Inside {suppression.model}: attention suppression"),
    )


class _Grid:
    """An n-by-n heatmap's values and hover texts (blank where none is put)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.z = [[math.nan] * n for _ in range(n)]
        self.text = [[""] * n for _ in range(n)]

    def put(self, row: int, column: int, value: float, text: str) -> None:
        self.z[row][column] = value
        self.text[row][column] = text

    def figure(
        self, selected: int | None, heat: dict[str, Any], hover: str, titles: tuple[str, str]
    ) -> go.Figure:
        """The heatmap: rows the step acted on, columns the later step, ``selected`` outlined."""
        n = self.n
        figure = go.Figure(
            go.Heatmap(
                z=self.z,
                x=list(range(n)),
                y=list(range(n)),
                text=self.text,
                hovertemplate=hover,
                hoverongaps=False,
                **heat,
            )
        )
        if selected is not None and 0 <= selected < n:
            line = {"color": "black", "width": 2}
            edges = (-0.5, n - 0.5, selected - 0.5, selected + 0.5)
            figure.add_shape(
                type="rect", x0=edges[0], x1=edges[1], y0=edges[2], y1=edges[3], line=line
            )
            figure.add_shape(
                type="rect", x0=edges[2], x1=edges[3], y0=edges[0], y1=edges[1], line=line
            )
        rows, title = titles
        figure.update_layout(
            height=420,
            margin={"l": 40, "r": 10, "t": 30, "b": 40},
            xaxis={"title": {"text": "later step j"}},
            yaxis={"title": {"text": rows}, "autorange": "reversed"},
            title={"text": title, "font": {"size": 14}},
        )
        return figure
