"""Label mode's chart: the segment chart's lines and label marks as one small inline SVG.

Label mode redraws its chart at every key. A Plotly chart whose figure changed is a new
element to Streamlit (its figure is part of its identity), so each key would build a Plotly
figure on the server and draw a whole new plot in the browser, the slowest part of a key. This
chart says the same in a few SVG elements, drawn by the browser at once: the PRM score (left
axis, 0..1, grey line) and the cumulative reward (right axis, blue steps) by segment, the
window of rows the table shows shaded, the selected segment's dotted line, and the human
labels as marks along the bottom, coloured and shaped as ``segment_chart.label_marks`` draws
them (red x wrong, grey dash neutral, green triangle correct); hovering a mark names its
segment and label. It is a picture: segments are selected with the keys and the rows.

Example:
    >>> import pandas as pd
    >>> table = pd.DataFrame({"#": [0, 1, 2], "PRM": [0.9, 0.2, float("nan")],
    ...                       "cumulative": [0.0, 0.0, 1.0], "label": ["+1", "-1", ""]})
    >>> svg = outline_svg(table, selected=1, window=range(0, 2))
    >>> svg.startswith("<svg") and svg.count("<title>segment")
    2

"""

from __future__ import annotations

import html
import math
from collections.abc import Iterator, Sequence

import pandas as pd

from llenvs.workbench.browse import LABEL_COLOURS, label_values

__all__ = ["outline_svg"]

WIDTH, HEIGHT = 440, 330
"""The drawing's own size; it is scaled to the column's width, keeping its proportions."""

_LEFT, _RIGHT, _TOP, _BOTTOM = 44, 52, 34, 36
"""The margins around the plot area: axes, ticks and the legend."""

_PRM_RANGE = (-0.05, 1.05)
"""The PRM axis (as the Plotly chart's): room under 0 for the label marks."""

_MARK_Y = -0.02
"""Where the label marks sit, on the PRM axis."""

_WORDS = {-1: "-1 wrong", 0: "0 neutral", 1: "+1 correct"}
_REWARD = "#1f77b4"
_PRM = "#999"
_SELECTED = "#1565c0"


def outline_svg(
    table: pd.DataFrame, selected: int | None = None, window: range | None = None
) -> str:
    """The chart of a ``segment_table`` as an SVG document (a string), ``selected`` marked.

    ``window``, the segments the table shows, is shaded when it is not all of them; the
    ``label`` column's labels are marks under the PRM scores.

    Example:
        >>> import pandas as pd
        >>> one = pd.DataFrame({"#": [0], "PRM": [float("nan")], "cumulative": [2.0]})
        >>> svg = outline_svg(one)
        >>> "PRM score" in svg, "cumulative reward" in svg, svg.count('stroke-width="2"/>')
        (False, True, 1)

    """
    x = [int(v) for v in table["#"].tolist()]
    scores = [float(v) for v in table["PRM"].tolist()]
    totals = [float(v) for v in table["cumulative"].tolist()]
    labels = label_values(table)
    plot = _Plot(first=x[0] if x else 0, last=x[-1] if x else 0, totals=totals)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        'width="100%" font-family="sans-serif" font-size="12" role="img" '
        'aria-label="The segments by index: scores, rewards, labels">',
    ]
    if window is not None and 0 < len(window) < len(x):
        left, right = plot.x(window.start - 0.5), plot.x(window.stop - 0.5)
        parts.append(
            f'<rect x="{left:.1f}" y="{_TOP}" width="{max(right - left, 1):.1f}" '
            f'height="{HEIGHT - _TOP - _BOTTOM}" fill="{_SELECTED}" fill-opacity="0.08"/>'
        )
    parts.extend(plot.axes())
    has_scores = any(not math.isnan(score) for score in scores)
    if has_scores:
        runs = [_thin([(plot.x(s), plot.prm(v)) for s, v in run]) for run in _runs(x, scores)]
        parts.append(f'<path d="{_path(runs)}" fill="none" stroke="{_PRM}"/>')
    steps = _thin([(plot.x(s), plot.reward(v)) for s, v in _steps(x, totals)])
    if steps:
        parts.append(
            f'<path d="{_path([steps])}" fill="none" stroke="{_REWARD}" stroke-width="2"/>'
        )
    for segment in sorted(labels):
        parts.append(_mark(plot.x(segment), plot.prm(_MARK_Y), segment, labels[segment]))
    if selected is not None and x:
        at = plot.x(selected)
        parts.append(
            f'<line x1="{at:.1f}" y1="{_TOP}" x2="{at:.1f}" y2="{HEIGHT - _BOTTOM}" '
            f'stroke="{_SELECTED}" stroke-width="2" stroke-dasharray="3 3"/>'
        )
    parts.extend(_legend(has_scores=has_scores, has_labels=bool(labels)))
    parts.append("</svg>")
    return "".join(parts)


class _Plot:
    """Where values go on the drawing: segments across, PRM and cumulative reward up."""

    def __init__(self, *, first: int, last: int, totals: Sequence[float]) -> None:
        self.first, self.last = first, max(last, first + 1)
        shown = [total for total in totals if not math.isnan(total)]
        low, high = (min(shown), max(shown)) if shown else (0.0, 0.0)
        if low == high:  # a flat line: whole ticks around it, as the Plotly chart's axis
            low, high = low - 1.0, high + 1.0
        self.ticks = (low, high)
        pad = (high - low) * 0.05
        self.low, self.high = low - pad, high + pad

    def x(self, segment: float) -> float:
        span = self.last - self.first
        return _LEFT + (segment - self.first) / span * (WIDTH - _LEFT - _RIGHT)

    def prm(self, value: float) -> float:
        bottom, top = _PRM_RANGE
        return HEIGHT - _BOTTOM - (value - bottom) / (top - bottom) * (HEIGHT - _TOP - _BOTTOM)

    def reward(self, value: float) -> float:
        share = (value - self.low) / (self.high - self.low)
        return HEIGHT - _BOTTOM - share * (HEIGHT - _TOP - _BOTTOM)

    def axes(self) -> Iterator[str]:
        """The frame, the ticks of the three axes and their titles."""
        bottom, right = HEIGHT - _BOTTOM, WIDTH - _RIGHT
        yield (
            f'<rect x="{_LEFT}" y="{_TOP}" width="{right - _LEFT}" height="{bottom - _TOP}" '
            'fill="none" stroke="#ddd"/>'
        )
        for value in (0.0, 0.5, 1.0):
            y = self.prm(value)
            yield f'<text x="{_LEFT - 4}" y="{y + 4:.1f}" text-anchor="end">{value:g}</text>'
        for value in self.ticks:
            shown = _number(value)
            y = self.reward(value)
            yield f'<text x="{right + 4}" y="{y + 4:.1f}" fill="{_REWARD}">{shown}</text>'
        for segment in _ticks(self.first, self.last):
            yield (
                f'<text x="{self.x(segment):.1f}" y="{bottom + 14}" '
                f'text-anchor="middle">{segment}</text>'
            )
        yield (
            f'<text x="{(_LEFT + right) / 2:.1f}" y="{HEIGHT - 6}" '
            'text-anchor="middle">segment</text>'
        )


def _runs(x: Sequence[int], values: Sequence[float]) -> Iterator[list[tuple[int, float]]]:
    """The stretches of segments that have a value (a missing one breaks the line)."""
    run: list[tuple[int, float]] = []
    for segment, value in zip(x, values, strict=True):
        if math.isnan(value):
            if run:
                yield run
            run = []
        else:
            run.append((segment, value))
    if run:
        yield run


def _steps(x: Sequence[int], totals: Sequence[float]) -> list[tuple[float, float]]:
    """The cumulative reward as steps: flat up to the next segment, then up or down."""
    points: list[tuple[float, float]] = []
    for segment, total in zip(x, totals, strict=True):
        if math.isnan(total):
            continue
        if points:
            points.append((segment, points[-1][1]))
        points.append((segment, total))
    return points


def _thin(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """``points`` (drawing coordinates, left to right) with at most four per half pixel across.

    Where many segments share a half pixel, only the first, the lowest, the highest and the
    last are kept, in order: the line looks the same, in far fewer points (a long trace).
    """
    kept: list[tuple[float, float]] = []
    group: list[tuple[float, float]] = []
    for point in points:
        if group and round(point[0] * 2) != round(group[0][0] * 2):
            kept.extend(_ends(group))
            group = []
        group.append(point)
    kept.extend(_ends(group))
    return kept


def _ends(group: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The first, lowest, highest and last of ``group``, in their order (each once)."""
    if len(group) <= 4:
        return group
    picked = {0, len(group) - 1}
    picked.add(min(range(len(group)), key=lambda i: group[i][1]))
    picked.add(max(range(len(group)), key=lambda i: group[i][1]))
    return [group[i] for i in sorted(picked)]


def _path(runs: list[list[tuple[float, float]]]) -> str:
    """An SVG path through each run of points, a gap between runs."""
    return " ".join("M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in run) for run in runs if run)


def _mark(x: float, y: float, segment: int, label: int) -> str:
    """One label's mark: an x (wrong), a dash (neutral) or a triangle (correct)."""
    red, green, blue = LABEL_COLOURS[label]
    colour = f"rgb({red}, {green}, {blue})"
    title = f"<title>segment {segment}: labelled {_WORDS[label]}</title>"
    if label < 0:
        shape = f"M{x - 4:.1f},{y - 4:.1f}L{x + 4:.1f},{y + 4:.1f}M{x - 4:.1f},{y + 4:.1f}L{x + 4:.1f},{y - 4:.1f}"  # noqa: E501
        return f'<path d="{shape}" stroke="{colour}" stroke-width="2">{title}</path>'
    if label == 0:
        shape = f"M{x - 5:.1f},{y:.1f}L{x + 5:.1f},{y:.1f}"
        return f'<path d="{shape}" stroke="{colour}" stroke-width="2">{title}</path>'
    shape = f"M{x:.1f},{y - 5:.1f}L{x + 4.5:.1f},{y + 3:.1f}L{x - 4.5:.1f},{y + 3:.1f}Z"
    return f'<path d="{shape}" fill="{colour}">{title}</path>'


def _legend(*, has_scores: bool, has_labels: bool) -> Iterator[str]:
    """The names of what is drawn, above the plot, each in its colour."""
    entries = [("PRM score", _PRM)] if has_scores else []
    entries.append(("cumulative reward", _REWARD))
    if has_labels:
        red, green, blue = LABEL_COLOURS[1]
        entries.append(("human label", f"rgb({red}, {green}, {blue})"))
    at = _LEFT
    for name, colour in entries:
        yield f'<rect x="{at}" y="12" width="14" height="3" fill="{colour}"/>'
        yield f'<text x="{at + 18}" y="17">{html.escape(name)}</text>'
        at += 26 + 7 * len(name)


def _ticks(first: int, last: int) -> list[int]:
    """At most six whole segment numbers from ``first`` to ``last``, evenly apart."""
    span = last - first
    step = max(1, math.ceil(span / 5))
    return list(range(first, last + 1, step))


def _number(value: float) -> str:
    """A tick's number, short: ``1``, ``0.25``, ``-1.5e+03``."""
    return html.escape(f"{value:.3g}")
