"""Label mode's chart (``outline_svg``): the lines, the window, the selected segment and a mark
per label, each coloured and shaped as the Plotly chart's, in a few elements however long the
trace."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pandas as pd

from llenvs.workbench.charts import label_marks, outline_svg, x_axis
from tests.chart_specs import colour_of

SVG = "{http://www.w3.org/2000/svg}"


def _table(n: int, labels: dict[int, str] | None = None) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "#": range(n),
            "PRM": [math.nan if i % 5 == 2 else (i % 3) / 2 for i in range(n)],
            "cumulative": [float(i // 4) for i in range(n)],
            "label": [(labels or {}).get(i, "") for i in range(n)],
        }
    )


def _parsed(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # well-formed XML, or this raises


def test_each_label_is_a_titled_mark_in_the_browse_charts_colour():
    root = _parsed(outline_svg(_table(10, {1: "+1", 4: "-1", 7: "0"}), selected=5))
    marks = [path for path in root.iter(f"{SVG}path") if path.find(f"{SVG}title") is not None]
    titles = [path.find(f"{SVG}title").text for path in marks]  # type: ignore[union-attr]
    assert titles == [
        "segment 1: labelled +1 correct",
        "segment 4: labelled -1 wrong",
        "segment 7: labelled 0 neutral",
    ]
    browse = label_marks({1: 1, 4: -1, 7: 0}, 0.0, x_axis([1, 4, 7], (0, 8)), {})
    colours = [path.get("fill") or path.get("stroke") for path in marks]
    assert colours == [colour_of(browse["encoding"], m["label"]) for m in browse["data"]["values"]]
    xs = [float(path.get("d", "").split(",")[0].lstrip("M")) for path in marks]
    assert xs == sorted(xs)  # left to right, by segment


def test_the_selected_segment_and_the_window_are_marked_where_they_are():
    table = _table(100)
    early, late = (
        _parsed(outline_svg(table, selected=s, window=range(s - 4, s + 8))) for s in (10, 80)
    )
    [line_early] = early.iter(f"{SVG}line")
    [line_late] = late.iter(f"{SVG}line")
    assert float(line_early.get("x1", "")) < float(line_late.get("x1", ""))
    shaded = [r for r in early.iter(f"{SVG}rect") if r.get("fill-opacity")]
    [window] = shaded
    left, width = float(window.get("x", "")), float(window.get("width", ""))
    assert left < float(line_early.get("x1", "")) < left + width
    whole = _parsed(outline_svg(table, selected=3, window=range(100)))
    assert not [r for r in whole.iter(f"{SVG}rect") if r.get("fill-opacity")]


def _lines(root: ET.Element) -> list[list[int]]:
    """Per drawn line (a path without a title: not a label mark), its runs' point counts."""
    found = []
    for path in root.iter(f"{SVG}path"):
        if path.find(f"{SVG}title") is None:
            runs = path.get("d", "").split("M")[1:]
            found.append([len(run.split("L")) for run in runs])
    return found


def test_missing_scores_break_the_line_and_no_scores_draw_none():
    # PRM missing at 2 and 7: runs 0-1, 3-6, 8-9; the cumulative reward in steps, unbroken.
    assert _lines(_parsed(outline_svg(_table(10)))) == [[2, 4, 2], [10 + 9]]
    flat = _table(3).assign(PRM=math.nan, cumulative=0.0)
    root = _parsed(outline_svg(flat))
    assert _lines(root) == [[3 + 2]]
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "PRM score" not in texts and "cumulative reward" in texts
    assert {"-1", "1"} <= set(texts)  # a flat reward: whole ticks around it


def test_a_long_trace_is_still_a_few_elements():
    n = 20_000
    table = _table(n, {5: "+1"}).assign(PRM=[(i % 3) / 2 for i in range(n)])
    root = _parsed(outline_svg(table, selected=10_000, window=range(9996, 10008)))
    assert sum(1 for _ in root.iter()) < 100  # a path per line, not an element per point
    points = sum(sum(runs) for runs in _lines(root))
    assert points < 4 * 2 * 440 * 2  # at most four points per half pixel, per line
    assert outline_svg(_table(0)).startswith("<svg")
