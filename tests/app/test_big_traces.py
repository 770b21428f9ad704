"""Big traces in Browse under AppTest: 10,000 segments show a window of rows, 1 MB opens.

The segment table shows ``WINDOW`` rows from just above the selected segment; its ``#`` column,
the URL's ``?segment=``, j/k, a row click and the chart all speak in true segment indices.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df
from streamlit.testing.v1 import AppTest

from llenvs.traces import SegmentRecord, TaskRecord, Trace, write_traces
from llenvs.ui.browse import TEXT_LIMIT
from llenvs.workbench.browse import BEFORE, WINDOW
from llenvs.workbench.files import TRACES_DIR_ENV
from tests.app.test_pages import open_page, text_blocks, texts

SEGMENTS = 10_000


def long_trace(texts: list[str]) -> Trace:
    segments, offset = [], 0
    for index, text in enumerate(texts):
        score = (index % 10) / 10
        segments.append(
            SegmentRecord(
                index,
                offset,
                offset + len(text),
                text,
                rewards={"prm": score},
                prm_scores={"prm": score},
                terminal=index == len(texts) - 1,
            )
        )
        offset += len(text)
    return Trace(
        task=TaskRecord("big_env", "test", {}, 0, "Count to a big number."),
        response="".join(texts),
        segments=tuple(segments),
        final_rewards={"correctness": 1.0},
        success=True,
    )


@pytest.fixture(scope="module")
def big_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("big-traces")
    write_traces(folder / "many.jsonl", [long_trace([f"Step {i}. " for i in range(SEGMENTS)])])
    ten_kb = [f"Part {i}: " + "word " * 2_000 + "\n" for i in range(100)]
    write_traces(folder / "megabyte.jsonl", [long_trace(ten_kb)])
    write_traces(folder / "one-segment.jsonl", [long_trace(["x" * 1_000_000 + " end."])])
    return folder


@pytest.fixture()
def big(big_folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(TRACES_DIR_ENV, str(big_folder))
    return big_folder


def shown_rows(at: AppTest) -> list[int]:
    """The true segment indices of the segment table's rows."""
    return [int(i) for i in at.dataframe[1].value["#"]]


def selected_row(at: AppTest) -> int:
    """The true index of the segment table's selected row."""
    rows = json.loads(at.dataframe[1].proto.selection_default)["selection"]["rows"]
    return shown_rows(at)[rows[0]]


def segment_of(at: AppTest) -> int:
    return int(str(at.query_params["segment"]).strip("[]'"))


def select(at: AppTest, element: object, selection: dict[str, object]) -> AppTest:
    """Send ``selection`` as the state of a table or chart, as the browser does on a click.

    AppTest has no row or point click: this runs the script with that element's selection state
    (what the frontend sends) beside the other widgets' values.
    """
    states = at._tree.get_widget_states()
    state = states.widgets.add()
    state.id = element.proto.id  # type: ignore[attr-defined]
    state.string_value = json.dumps({"selection": selection})
    return at._run(states)


def click_row(at: AppTest, position: int) -> AppTest:
    """Click the row at ``position`` of the segment table (0: its first shown row)."""
    return select(at, at.dataframe[1], {"rows": [position], "columns": [], "cells": []})


def charts(at: AppTest, key: str = "") -> list[Any]:
    """The page's Vega-Lite charts whose key starts with ``key``, in order."""
    return [c for c in at.get("vega_lite_chart") if c.proto.id.split("-", 2)[2].startswith(key)]


def chart_spec(chart: Any) -> dict[str, Any]:
    """A chart's spec as the app sent it (its top-level data apart: ``chart_rows``)."""
    return json.loads(chart.proto.spec)


def chart_rows(chart: Any) -> pd.DataFrame:
    """A chart's top-level data, as the app sent it."""
    return convert_arrow_bytes_to_pandas_df(chart.proto.data.data)


def click_segment(at: AppTest, chart: Any, segment: int) -> AppTest:
    """Click ``chart`` over ``segment``: its column's selection (``segment_chart.columns``)."""
    [name] = [p["name"] for p in _layers(chart_spec(chart)) for p in p.get("params", ())]
    return select(at, chart, {name: [{"segment": segment}]})


def _layers(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [spec] + [inner for layer in spec.get("layer", ()) for inner in _layers(layer)]


def test_a_10000_segment_trace_opens_on_a_window_of_rows(big):
    at = open_page("browse", file=str(big / "many.jsonl"))
    assert f"{SEGMENTS} segments" in texts(at)
    assert shown_rows(at) == list(range(WINDOW))
    assert selected_row(at) == 0
    assert f"Segments 0–{WINDOW - 1} of 10,000" in texts(at)
    assert "Segment 0" in [t.label for t in at.tabs]
    spec = chart_spec(charts(at, "chart-")[0])
    assert spec["usermeta"]["embedOptions"]["renderer"] == "canvas"  # not 10,000 SVG elements
    drawn = {layer.get("name"): layer for layer in _layers(spec)}
    for name in ("segments", "PRM score", "cumulative reward"):  # the chart: all of them
        assert len(drawn[name]["data"]["values"]) == SEGMENTS


def test_the_url_segment_is_selected_in_view(big):
    at = open_page("browse", file=str(big / "many.jsonl"), segment="9500")
    assert shown_rows(at) == list(range(9500 - BEFORE, 9500 - BEFORE + WINDOW))
    assert selected_row(at) == 9500
    assert "Segment 9500" in [t.label for t in at.tabs]
    assert "Step 9500. " in text_blocks(at)
    last = open_page("browse", file=str(big / "many.jsonl"), segment=str(SEGMENTS - 1))
    assert shown_rows(last) == list(range(SEGMENTS - 1 - BEFORE, SEGMENTS))  # the last ones
    assert selected_row(last) == SEGMENTS - 1


def test_clicking_a_row_selects_its_true_segment_and_j_k_go_past_the_window(big):
    at = open_page("browse", file=str(big / "many.jsonl"), segment="9500")
    click_row(at, 7)
    assert not at.exception and segment_of(at) == 9500 - BEFORE + 7
    at = open_page("browse", file=str(big / "many.jsonl"), segment="9500")
    edge = shown_rows(at)[-1]
    click_row(at, WINDOW - 1)  # the window's last row
    assert segment_of(at) == edge and selected_row(at) == edge
    assert "Segment 9695" in [t.label for t in at.tabs]
    at.button(key="nav-j").click().run()  # past the old window's edge
    assert not at.exception and segment_of(at) == edge + 1 and selected_row(at) == edge + 1
    at.button(key="nav-k").click().run()
    at.button(key="nav-k").click().run()
    assert segment_of(at) == edge - 1 and selected_row(at) == edge - 1
    assert f"Step {edge - 1}. " in text_blocks(at)


def test_the_window_buttons_page_the_rows_and_keep_the_selection(big):
    """``◀``/``▶`` move the rows a window's length; the selection stays where it was (the
    buttons once moved it too), and the next move of the selection brings the rows back."""
    at = open_page("browse", file=str(big / "many.jsonl"), segment="158")
    assert shown_rows(at)[0] == 158 - BEFORE
    at.button(key="rows-on").click().run()
    assert not at.exception and segment_of(at) == 158
    assert shown_rows(at) == list(range(158 - BEFORE + WINDOW, 158 - BEFORE + 2 * WINDOW))
    assert "segment 158, selected, is not among them" in texts(at)
    assert "Segment 158" in [t.label for t in at.tabs]
    at.button(key="rows-back").click().run()
    at.button(key="rows-back").click().run()
    assert segment_of(at) == 158 and shown_rows(at)[0] == 0 and at.button(key="rows-back").disabled
    click_row(at, 3)  # a row of the paged window selects its segment
    assert segment_of(at) == 3 and selected_row(at) == 3
    at.button(key="rows-on").click().run()
    at.button(key="nav-j").click().run()  # the selection moves: the rows follow it again
    assert segment_of(at) == 4 and selected_row(at) == 4 and shown_rows(at)[0] == 0


def test_the_chart_reaches_any_segment(big):
    at = open_page("browse", file=str(big / "many.jsonl"), segment="10")
    click_segment(at, charts(at, "chart-")[0], 8123)
    assert not at.exception and segment_of(at) == 8123 and selected_row(at) == 8123


@pytest.mark.parametrize("name", ["megabyte.jsonl", "one-segment.jsonl"])
def test_a_1_mb_response_opens_and_shows_a_window_of_its_text(big, name):
    at = open_page("browse", file=str(big / name), segment="50")
    assert not at.exception and at.subheader
    assert all(len(c) <= 2 * TEXT_LIMIT for c in text_blocks(at))  # a ↵ mark per newline at most
    assert "of 1,0" in texts(at) and "in the response (segment" in texts(at)
    labels = [d.proto.label for d in at.get("download_button")]
    assert any(label.startswith("Download the response (1,0") for label in labels)
