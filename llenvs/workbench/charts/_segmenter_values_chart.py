r"""The chart and table of step values under several segmenters, on the response's text.

Two rows share one x axis, the characters of the response, labelled with the text that starts
at each tick: above, each segmenter's value before each of its boundaries with its 95% interval
(a step line: the value holds until the next cut; the bars of segmenters that cut at the same
character are set a little apart), below, the importance of each step drawn across the
characters it spans, so a move one segmenter finds in a sentence and another in the paragraph
holding it line up where they are in the text. Hovering a point shows the text there. Each
segmenter's largest move is shaded in its colour, with a dotted edge when its rollouts are too
few to tell it from no move. ``pair_rows`` is the table of each pair's agreement.

Example:
    >>> from llenvs.analysis import SegmenterComparison, SegmenterValues
    >>> c = SegmenterComparison("t", (SegmenterValues("sentence", (0, 3, 7), (0.2, 0.9, 1.0)),
    ...                               SegmenterValues("line", (0, 7), (0.2, 1.0))))
    >>> figure = segmenter_values_figure(c, "Hi. So 8")
    >>> [t.name for t in figure.data]
    ['sentence', 'sentence', 'line', 'line']
    >>> figure.layout.xaxis2.ticktext
    ('0<br>Hi. So 8', '3<br> So 8', '7<br>8')
    >>> pair_rows(c).iloc[0].to_dict()["largest moves"]
    'overlap 0–3'

"""

from __future__ import annotations

import html

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from llenvs.analysis import BoundaryValue, MoveCertainty, SegmenterComparison, SegmenterPair
from llenvs.workbench._whitespace import one_line

__all__ = ["COLOURS", "MAX_TICKS", "SNIPPET", "pair_rows", "segmenter_values_figure"]

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd")
"""One colour per segmenter, in order."""

MAX_TICKS = 12
"""The most ticks on the text axis (each segmenter's largest move's ends first)."""

SNIPPET = 12
"""Characters of the response shown under a tick (the text from there on)."""


def segmenter_values_figure(comparison: SegmenterComparison, response: str) -> go.Figure:
    """Values with their intervals (above) and importances (below) of every cut of ``response``."""
    figure = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.12,
        row_heights=[0.6, 0.4],
        subplot_titles=(
            "value before each cut, v_i, with its 95% interval",
            "importance v_i+1 − v_i, across its step",
        ),
    )
    count = len(comparison.segmenters)
    nudge = max(len(response), 1) / 250  # bars at a shared cut set apart, under a character
    for number, values in enumerate(comparison.segmenters):
        colour = COLOURS[number % len(COLOURS)]
        certainty = comparison.certainty(number)
        bounds = comparison.cut_intervals(number)
        shift = (number - (count - 1) / 2) * nudge
        figure.add_trace(
            go.Scatter(
                x=[cut + shift for cut in values.cuts],
                y=list(values.values),
                name=values.spec + _rollouts(certainty),
                legendgroup=values.spec,
                mode="lines+markers",
                line={"shape": "hv", "color": colour},
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": [_reach(b, above=True) for b in bounds],
                    "arrayminus": [_reach(b, above=False) for b in bounds],
                    "color": colour,
                    "thickness": 1.5,
                    "width": 3,
                },
                text=[
                    _value_hover(response, cut, bound)
                    for cut, bound in zip(values.cuts, bounds, strict=True)
                ],
                hovertemplate="%{text}<extra>" + html.escape(values.spec) + "</extra>",
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
                text=[
                    _step_hover(response, values.cuts, step, move)
                    for step, move in enumerate([*moves, None])
                ],
                hovertemplate="%{text}<extra>" + html.escape(values.spec) + "</extra>",
            ),
            row=2,
            col=1,
        )
        span = values.largest()
        if span is not None:
            unsure = certainty.told is False
            figure.add_vrect(
                x0=span[0],
                x1=span[1],
                fillcolor=colour,
                opacity=0.08 if unsure else 0.14,
                line={"color": colour, "width": 1, "dash": "dot"} if unsure else {"width": 0},
                row=2,
                col=1,
            )
    ticks = _ticks(comparison, len(response))
    labels = _labels(ticks, response)
    figure.update_xaxes(tickvals=ticks, ticktext=labels, tickangle=0)
    figure.update_xaxes(title_text="the response: character, then the text from there", row=2)
    figure.update_yaxes(range=[-0.05, 1.05], row=1, col=1)
    figure.update_layout(
        height=520, margin={"t": 40, "b": 60}, legend={"orientation": "h", "y": -0.25}
    )
    return figure


def _rollouts(certainty: MoveCertainty) -> str:
    """How many rollouts each boundary had, for the legend."""
    if certainty.per_boundary is None:
        return ""
    return f" ({certainty.spread} rollouts per boundary)"


def _reach(bound: BoundaryValue | None, *, above: bool) -> float | None:
    """How far the 95% interval reaches above (or below) the value (None: no interval)."""
    if bound is None or bound.value is None:
        return None
    return bound.interval.high - bound.value if above else bound.value - bound.interval.low


def _snippet(response: str, start: int) -> str:
    """The text from ``start`` on, one line, escaped for plotly (``end`` at the end)."""
    if start >= len(response):
        return "end"
    return html.escape(one_line(response[start : start + SNIPPET + 1], SNIPPET))


def _value_hover(response: str, cut: int, bound: BoundaryValue | None) -> str:
    """A value's hover: the value, its interval and rollouts, and the text after the cut."""
    if bound is None or bound.value is None:
        how = "not sampled"
    elif bound.exact:
        how = f"v = {bound.value:.2f}, the trace's own verdict"
    else:
        low, high = bound.interval.low, bound.interval.high
        how = f"v = {bound.value:.2f}, 95% {low:.2f}–{high:.2f} from {bound.trials} rollouts"
    after = html.escape(one_line(response[cut : cut + 60], 60)) or "(the end)"
    return f"{how}<br>character {cut}, before: {after}"


def _step_hover(response: str, cuts: tuple[int, ...], step: int, move: float | None) -> str:
    """A step's hover: its characters, importance and text."""
    if step + 1 >= len(cuts):
        return f"character {cuts[-1]}: the end"
    start, end = cuts[step], cuts[step + 1]
    moved = "unknown" if move is None else f"{move:+.2f}"
    text = html.escape(one_line(response[start:end], 80))
    return f"step {step}, characters {start}–{end}: {moved}<br>{text}"


def _labels(ticks: list[int], response: str) -> list[str]:
    """Each tick's character and the text from there; one close to the last a line lower."""
    gap = max(len(response), 1) / MAX_TICKS
    labels = []
    lowered = False
    for number, tick in enumerate(ticks):
        lowered = number > 0 and tick - ticks[number - 1] < gap and not lowered
        label = f"{tick}<br>{_snippet(response, tick)}"
        labels.append(f"<br><br>{label}" if lowered else label)
    return labels


def _ticks(comparison: SegmenterComparison, length: int) -> list[int]:
    """Up to ``MAX_TICKS`` cuts spread over the text, the ends of each largest move first."""
    ends = {c for v in comparison.segmenters if (span := v.largest()) for c in span}
    cuts = sorted({c for v in comparison.segmenters for c in v.cuts if c <= length} | {0})
    gap = max(length, 1) / MAX_TICKS
    chosen = sorted(ends)
    for cut in cuts:
        if len(chosen) >= MAX_TICKS:
            break
        if all(abs(cut - other) >= gap for other in chosen):
            chosen.append(cut)
    return sorted(chosen)


def pair_rows(comparison: SegmenterComparison) -> pd.DataFrame:
    """One row per pair: where the largest moves fall, widths, τ, and whether rollouts tell."""
    rows = []
    for pair in comparison.pairs():
        rows.append(
            {
                "segmenters": f"{pair.first} vs {pair.second}",
                "largest moves": _placement(pair),
                "widths (characters)": " / ".join(
                    "—" if w is None else str(w) for w in pair.widths
                ),
                "Kendall τ": None if pair.tau is None else round(pair.tau, 3),
                "rollouts tell?": _tells(pair),
            }
        )
    return pd.DataFrame(
        rows,
        columns=[
            "segmenters",
            "largest moves",
            "widths (characters)",
            "Kendall τ",
            "rollouts tell?",
        ],
    )


def _placement(pair: SegmenterPair) -> str:
    """Where the two largest moves fall, in a few words."""
    a, b = pair.spans
    if a is None or b is None:
        return "—"
    if a == b:
        return f"same text {a[0]}–{a[1]}"
    if pair.same_span:
        return f"overlap {max(a[0], b[0])}–{min(a[1], b[1])}"
    if pair.spike is not None:
        return f"same {pair.spike.name} at {pair.spike.character}"
    return "apart"


def _tells(pair: SegmenterPair) -> str:
    """Whether the rollouts tell both largest moves from no move."""
    if pair.too_few:
        return "no: too few rollouts"
    if all(c.told for c in pair.certainty):
        return "yes"
    return "—"
