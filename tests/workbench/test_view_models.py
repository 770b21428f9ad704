"""The workbench's view models, without Streamlit: index, filters, segment rows, comparison."""

from __future__ import annotations

import json
import math

from llenvs.core.segmenters import BoundaryAgreement, boundary_agreement, segmenter_from_spec
from llenvs.traces import TraceImport, append_labels, write_traces
from llenvs.workbench import agreement_matrix, aligned_table, compare_segmenters
from llenvs.workbench.browse import Success, TraceFilter, segment_table, shown_labels
from llenvs.workbench.charts import layer_names, segment_figure, selected_segment
from llenvs.workbench.files import (
    TRACE_LINE,
    TraceIndex,
    lines_containing,
    save_upload,
    trace_files,
)
from tests.conftest import EXTERNAL, read_jsonl


def imported(tmp_path, name="real_responses.jsonl", format="reasoning_gym"):
    path = tmp_path / f"{name}.traces.jsonl"
    write_traces(path, TraceImport(format, EXTERNAL / name))
    return path


def test_the_index_keeps_summaries_and_offsets_and_loads_each_trace_exactly(tmp_path):
    path = imported(tmp_path)
    index = TraceIndex.scan(path)
    traces = list(TraceImport("reasoning_gym", EXTERNAL / "real_responses.jsonl"))
    assert index.count == 20 and index.skipped == ()
    for line, trace in zip(index.table["line"], traces, strict=True):
        loaded = index.load(int(line))
        assert loaded.response == trace.response and loaded.task == trace.task
    row = index.table.iloc[1]
    assert (row["environment"], row["task"], row["success"], row["segments"]) == (
        "leg_counting",
        11,
        False,
        len(traces[1].segments),
    )
    assert row["reward"] == 0.0 and math.isnan(row["prm_min"])


def test_the_index_skips_torn_and_foreign_lines_by_number(tmp_path):
    path = imported(tmp_path)
    text = path.read_text()
    path.write_text(text + json.dumps({"hello": 1}) + "\n\n" + text.splitlines()[0][:50])
    index = TraceIndex.scan(path)
    assert index.count == 20
    assert [(s.line, s.torn) for s in index.skipped] == [(21, False), (23, True)]


def test_text_search_matches_escaped_text_case_insensitively(tmp_path):
    path = imported(tmp_path)
    lines = lines_containing(path, "STARFISH")
    rows = read_jsonl("real_responses.jsonl")
    expected = {
        n
        for n, row in enumerate(rows, start=1)
        if "starfish" in (row["response"] + row["prompt"]).lower()
    }
    assert lines == expected and lines
    assert lines_containing(path, "Let me solve this step by step:\n\n1. First") == {1}


def test_filters_combine(tmp_path):
    table = TraceIndex.scan(imported(tmp_path)).table
    legs = TraceFilter(environments=("leg_counting",))
    assert len(legs.apply(table)) == 12
    failed = TraceFilter(environments=("leg_counting",), success=Success.FAILED)
    assert len(failed.apply(table)) == 6
    assert len(TraceFilter(reward_range=(0.5, 1.0)).apply(table)) == 9
    assert len(TraceFilter(task=31).apply(table)) == 1
    assert TraceFilter(lines=[2, 3]).apply(table)["line"].tolist() == [2, 3]
    assert len(TraceFilter(prm_min=0.1).apply(table)) == 0  # no PRM scores in this import


def test_segment_rows_and_chart_of_an_imported_step_file(tmp_path):
    source = TraceImport("processbench", EXTERNAL / "step_traces.jsonl")
    trace = next(iter(source))
    path = tmp_path / "steps.jsonl"
    write_traces(path, [trace])
    append_labels(path, source.labels)  # as llenvs import stores them: beside the trace file
    table = segment_table(trace, shown_labels(path, trace))
    assert len(table) == len(trace.segments)
    shown = {1: "+1", 0: "0", -1: "-1", None: ""}
    assert table["label"].tolist() == [
        shown[x] for x in read_jsonl("step_traces.jsonl")[0]["labels"]
    ]
    assert set(segment_table(trace)["label"]) == {""}  # the trace itself holds no label
    assert table["reward"].iloc[-1] == trace.final_rewards["correctness"]
    figure = segment_figure(table, selected=2)
    # No PRM scores: no PRM line; the labels are marked.
    assert layer_names(figure) == [
        "human label",
        "selected segment",
        "cumulative reward",
        "segments",
    ]
    assert selected_segment({"selection": {"segment": [{"segment": 2.0}]}}) == 2


def test_comparison_agrees_with_the_boundary_benchmark_on_the_step_traces():
    rows = read_jsonl("step_traces.jsonl")
    texts = []
    for row in rows:
        joiner = "\n" if row["dataset"] == "prm800k" else "\n\n"
        starts, offset = [], 0
        for step in row["steps"]:
            starts.append(offset)
            offset += len(step) + len(joiner)
        texts.append((joiner.join(row["steps"]), starts))
    agreement = boundary_agreement(segmenter_from_spec("line:\\n\\n"), texts)
    assert round(agreement.f1, 3) == 0.928  # the figure docs/benchmarks.md reports
    text = texts[0][0]
    runs = compare_segmenters(text, rows[0]["problem"], ["line", "line:\\n\\n", "sentence"])
    matrix = agreement_matrix(text, runs)
    assert matrix.values.diagonal().tolist() == [1.0, 1.0, 1.0]
    assert (matrix.values == matrix.values.T).all()
    aligned = aligned_table(text, runs)
    assert aligned["line"].str.startswith("▶").sum() == runs[0].count
    assert (
        BoundaryAgreement.of(text, runs[0].spans, [s for s, _ in runs[1].spans]).f1
        == (matrix.loc["line", "line:\\n\\n"])
    )


def test_uploads_get_safe_names_inside_the_folder(tmp_path):
    saved = save_upload(tmp_path, "../../etc/evil name.jsonl", TRACE_LINE)
    assert saved.parent == tmp_path and saved.name == "evil_name.jsonl"
    (tmp_path / "runs.branches.jsonl").write_text("")
    assert trace_files(tmp_path) == [saved]
