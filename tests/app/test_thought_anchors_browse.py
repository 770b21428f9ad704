"""Browse on an imported Thought Anchors trace: the published step values beside the trace.

The longest shared trace (321 chunks) is imported; Browse opens it, and the step values panel
draws the published accuracies, values and intervals equal to the sidecar's as the library reads
them (``published_step_analysis``), with where they came from. The segment table filters by the
published function tags (true segment indices kept), the selected segment links to what it
depends on and what depends on it, and the chart shows any published importance measure,
zoomed on the selected segment or whole.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from collections import Counter

import pytest

from llenvs.analysis import (
    CHANCES_CHECKED,
    analysis_path,
    published_step_analysis,
    read_published,
)
from llenvs.cli.main import main
from llenvs.traces import read_traces
from llenvs.ui.browse import MEASURE, TAG_FILTER, WHOLE, ZOOM
from llenvs.workbench.browse import BEFORE, WINDOW, measure_label
from llenvs.workbench.charts import layer_names
from llenvs.workbench.files import TRACES_DIR_ENV
from tests.app.test_big_traces import chart_rows, chart_spec, charts, click_row, click_segment
from tests.app.test_pages import open_page, texts
from tests.chart_specs import layer
from tests.conftest import EXTERNAL

LONGEST = (
    EXTERNAL
    / "thought_anchors"
    / "deepseek-r1-distill-llama-8b"
    / "incorrect_base_solution"
    / "problem_4164"
)


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("traces")
    out = folder / "ta.jsonl"
    assert main(["import", "thought-anchors", str(LONGEST), "-o", str(out)]) == 0
    return out


def _published_values() -> list[float]:
    """The study's own numbers, read here: each chunk's published accuracy (boundary i is
    before chunk i), then the trace's verdict after its last (wrong: 0)."""
    chunks = json.loads((LONGEST / "chunks_labeled.json").read_text())
    return [chunk["accuracy"] for chunk in chunks] + [0.0]


def test_browse_shows_the_published_step_values_of_a_321_step_trace(imported, monkeypatch):
    monkeypatch.setenv(TRACES_DIR_ENV, str(imported.parent))
    [trace] = read_traces(imported)
    at = open_page("browse", file=str(imported), trace="1", segment="158")
    assert not at.exception, at.exception
    shown = texts(at)
    assert "Published values (Thought Anchors, imported): 321 boundaries" in shown
    assert "inferred from the published accuracy" in shown
    values = _published_values()
    assert len(values) == 322 and trace.success is False
    for chart in charts(at, "sv-chart"):  # the values and importances: the zoom shows 61
        assert chart_rows(chart)["segment"].tolist() == list(range(128, 189))
    table = next(d.value for d in at.dataframe if "importance low" in d.value.columns)
    assert table["#"].tolist() == [str(b) for b in range(128, 189)]  # the chart's rows
    assert "Rows 128–188 of 0–321, the chart’s window" in texts(at)
    shown_values = table["value"].tolist()
    assert all(math.isclose(a, b) for a, b in zip(shown_values, values[128:189], strict=True))
    at.toggle(key=WHOLE).set_value(True).run()
    table = next(d.value for d in at.dataframe if "importance low" in d.value.columns)
    assert len(table) == 322 and table["#"].iloc[-1] == "end"  # 321 boundaries and the end
    shown_values = table["value"].tolist()
    assert all(math.isclose(a, b) for a, b in zip(shown_values, values, strict=True))
    assert "the chart’s window" not in texts(at)


def _open(imported, monkeypatch, segment):
    monkeypatch.setenv(TRACES_DIR_ENV, str(imported.parent))
    [trace] = read_traces(imported)
    at = open_page("browse", file=str(imported), trace="1", segment=str(segment))
    assert not at.exception, at.exception
    return at, trace


def _rows(at):
    """The true segment indices of the segment table's rows."""
    return [int(i) for i in at.dataframe[1].value["#"]]


def _segment(at):
    return int(str(at.query_params["segment"]).strip("[]'"))


def _tags(segment):
    return segment.annotations["function_tags"]


def _chart(at):
    """The importance chart: its element, spec, data and the segments its x axis spans."""
    [chart] = charts(at, "sv-chart-importance")
    spec = chart_spec(chart)
    domain = layer(spec, "segments")["encoding"]["x"]["scale"]["domain"]
    return chart, spec, chart_rows(chart), domain


def test_the_tag_filter_shows_the_segments_carrying_the_tags_by_their_true_index(
    imported, monkeypatch
):
    at, trace = _open(imported, monkeypatch, 158)
    tags = [s.annotations["function_tags"] for s in trace.segments]
    counts = Counter(tag for segment in tags for tag in segment)
    box = at.multiselect(key=f"{TAG_FILTER}-{trace.trace_id}")
    assert sorted(box.options) == sorted(f"{tag} ({n})" for tag, n in counts.items())
    assert _rows(at) == list(range(158 - BEFORE, 321))  # unfiltered: the window, true indices
    assert at.dataframe[1].value["tags"].tolist()[BEFORE] == ", ".join(tags[158])
    box.select("self_checking").select("result_consolidation").run()
    assert not at.exception
    wanted = [i for i, t in enumerate(tags) if {"self_checking", "result_consolidation"} & {*t}]
    assert _rows(at) == wanted and len(wanted) == 19
    assert "19 of 321 segments tagged result_consolidation or self_checking" in texts(at)
    click_row(at, 3)  # a filtered row selects its true segment
    assert _segment(at) == wanted[3] and f"Segment {wanted[3]}" in [t.label for t in at.tabs]
    assert _rows(at) == wanted  # the filter holds as the selection moves


def test_a_filter_longer_than_the_window_shows_a_window_of_its_rows(imported, monkeypatch):
    [trace] = read_traces(imported)
    active = [i for i, s in enumerate(trace.segments) if "active_computation" in _tags(s)]
    assert len(active) == 202 > WINDOW
    at, _ = _open(imported, monkeypatch, active[2])
    at.multiselect(key=f"{TAG_FILTER}-{trace.trace_id}").select("active_computation").run()
    rows = _rows(at)
    assert rows == active[:WINDOW]
    selected = json.loads(at.dataframe[1].proto.selection_default)["selection"]["rows"]
    assert [rows[r] for r in selected] == [active[2]]
    assert f"{WINDOW} of the {len(active)} tagged rows" in texts(at)


def test_the_selected_segment_shows_its_dependencies_and_a_click_selects_one(imported, monkeypatch):
    at, trace = _open(imported, monkeypatch, 158)
    assert "Summary: " + trace.segments[158].annotations["summary"] in texts(at)
    [uses] = [b for b in at.button if b.key and b.key.startswith("link-1-158-uses-")]
    assert uses.key == "link-1-158-uses-151"  # its published depends_on
    uses.click().run()
    assert not at.exception and _segment(at) == 151 and "Segment 151" in [t.label for t in at.tabs]
    used_by = [int(b.key.rsplit("-", 1)[1]) for b in at.button if b.key and "-used-by-" in b.key]
    expected = [i for i, s in enumerate(trace.segments) if 151 in s.annotations["depends_on"]]
    assert used_by == expected and len(expected) == 15  # the inverse: 152 to 166
    at.button(key="link-1-151-used-by-166").click().run()
    assert not at.exception and _segment(at) == 166


def test_the_chart_shows_the_chosen_published_measure(imported, monkeypatch):
    at, trace = _open(imported, monkeypatch, 158)
    [published] = read_published(analysis_path(imported), trace.trace_id)
    measure = at.selectbox(key=MEASURE)
    assert measure.options[1:] == [
        f"{measure_label(name)} (published)" for name in published.measures
    ]
    at.toggle(key=WHOLE).set_value(True).run()
    _, _, bars, _ = _chart(at)
    values = _published_values()  # our importance of step i: v(i + 1) - v(i)
    steps = [after - before for before, after in itertools.pairwise(values)]
    assert bars["importance"].tolist()[:-1] == pytest.approx(steps)
    for name in ("resampling_importance_accuracy", "counterfactual_importance_kl"):
        at.selectbox(key=MEASURE).select(name).run()
        assert not at.exception
        _, spec, bars, _ = _chart(at)
        shown = bars["importance"].tolist()
        assert shown[:-1] == pytest.approx(published.measures[name])  # one per segment
        assert math.isnan(shown[-1])  # none at the end
        assert name in layer_names(spec)[0]


def test_the_chart_opens_zoomed_on_the_selected_segment_and_shows_the_whole_trace(
    imported, monkeypatch
):
    at, _ = _open(imported, monkeypatch, 158)
    chart, _, bars, (low, high) = _chart(at)
    assert (low + high) / 2 == 158 and high - low == ZOOM + 1
    assert bars["segment"].tolist() == list(range(128, 189))  # the bars in view are sent
    click_segment(at, chart, 170)
    assert _segment(at) == 170
    low, high = _chart(at)[3]
    assert (low + high) / 2 == 170  # the zoom follows the selection
    at, _ = _open(imported, monkeypatch, 2)  # near the start: no empty half left of 0
    assert _chart(at)[3] == [-0.5, ZOOM + 0.5]
    at.toggle(key=WHOLE).set_value(True).run()
    chart, _, bars, domain = _chart(at)
    assert domain == [-0.5, 321.5] and len(bars) == 322


def test_j_and_k_step_among_the_segments_the_tag_filter_shows(imported, monkeypatch):
    start = 100
    at, trace = _open(imported, monkeypatch, start)
    checking = [i for i, s in enumerate(trace.segments) if "self_checking" in _tags(s)]
    before, after = [i for i in checking if i < start], [i for i in checking if i > start]
    assert start not in checking and len(before) >= 2 and len(after) >= 2
    box = at.multiselect(key=f"{TAG_FILTER}-{trace.trace_id}")
    box.select("self_checking").run()
    at.button(key="nav-j").click().run()  # from a segment the filter leaves out: the next shown
    assert not at.exception and _segment(at) == after[0]
    at.button(key="nav-j").click().run()
    assert _segment(at) == after[1]
    at.button(key="nav-k").click().run()
    at.button(key="nav-k").click().run()  # past the start, which is not shown
    assert _segment(at) == before[-1] and f"Segment {before[-1]}" in [t.label for t in at.tabs]
    for _ in range(len(after) + 2):
        at.button(key="nav-j").click().run()
    assert _segment(at) == checking[-1]  # the last shown row: j stays there
    at.multiselect(key=f"{TAG_FILTER}-{trace.trace_id}").set_value([]).run()
    at.button(key="nav-j").click().run()  # no filter: the next segment, as ever
    assert _segment(at) == checking[-1] + 1
    at.button(key="nav-k").click().run()
    at.button(key="nav-k").click().run()
    assert _segment(at) == checking[-1] - 1


def test_the_header_says_what_the_study_states_and_which_prm_scored_at_import(
    tmp_path, monkeypatch
):
    """Sampling the study does not state is "not recorded", never our default; the PRM scores
    name the PRM that made them at import."""
    out = tmp_path / "ta.jsonl"
    assert (
        main(["import", "thought-anchors", str(LONGEST), "-o", str(out), "--prm", "arithmetic"])
        == 0
    )
    [trace] = read_traces(out)
    assert trace.run.spec.prm is not None and trace.run.spec.prm.class_name == "ArithmeticPRM"
    monkeypatch.setenv(TRACES_DIR_ENV, str(tmp_path))
    at = open_page("browse", file=str(out), trace="1", segment="158")
    assert not at.exception, at.exception
    captions = [c.value for c in at.caption]
    [header] = [c for c in captions if "sampling: " in c]
    assert (
        "sampling: temperature 0.6, top-p 0.95; top-k, max tokens and seed not recorded "
        "(stated by Thought Anchors, arXiv 2506.19143)"
    ) in header
    assert "256 tokens" not in header
    assert "PRM scores: recorded with the trace, by arithmetic (ArithmeticPRM)" in captions
    [detail] = [c for c in captions if c.startswith("characters ")]
    assert "PRM score, recorded with the trace: arithmetic (ArithmeticPRM) 0.500" in detail
    assert "rewards: —" in detail  # the PRM's reward is its score: said once


def test_the_move_size_delta_decides_the_steps_called_and_the_expected_wrong_calls(
    imported, monkeypatch
):
    at, trace = _open(imported, monkeypatch, 158)
    at.toggle(key=WHOLE).set_value(True).run()  # the table holds every row
    [published] = read_published(analysis_path(imported), trace.trace_id)
    analysis = published_step_analysis(trace, published)
    for delta in (0.2, 0.1):
        if delta != 0.2:
            at.text_input(key="sv-delta").input(str(delta)).run()
            assert not at.exception, at.exception
        expected = dataclasses.replace(analysis, delta=delta)
        caption = next(c.value for c in at.caption if "called moved" in c.value)
        assert expected.calls_summary() in caption and CHANCES_CHECKED in caption
        assert f"|Δv| ≥ {delta:g}" in caption and "expected wrong" in caption
        table = next(d.value for d in at.dataframe if "moved" in d.value.columns)
        shown = {b: m for b, m in enumerate(table["moved"]) if not math.isnan(m)}
        assert shown == pytest.approx(expected.moved, abs=1e-9)
    assert len(dataclasses.replace(analysis, delta=0.1).called) > len(analysis.called) > 0
    # the published curve's largest move (0.49, at step 158) is called moved, all but surely
    values = _published_values()
    largest = max(range(len(values) - 1), key=lambda step: abs(values[step + 1] - values[step]))
    assert largest in analysis.called and shown[largest] > 0.99
