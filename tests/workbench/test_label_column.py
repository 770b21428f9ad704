"""The segment table's label column reads the label store; the app's import fills the store."""

from __future__ import annotations

from llenvs.traces import (
    SegmentRecord,
    StepLabel,
    TaskRecord,
    Trace,
    append_labels,
    read_labels,
    read_traces,
)
from llenvs.workbench.browse import segment_table, shown_labels
from llenvs.workbench.files import import_into
from tests.conftest import EXTERNAL, read_jsonl


def test_the_apps_import_puts_the_labels_in_the_store_and_the_column_shows_them(tmp_path):
    outcome = import_into(tmp_path, "processbench", EXTERNAL / "step_traces.jsonl")
    assert (outcome.count, outcome.labels) == (197, 1119)
    assert b"human_label" not in outcome.path.read_bytes()
    traces = list(read_traces(outcome.path))
    assert len(read_labels(outcome.path).history) == 1119
    rows = read_jsonl("step_traces.jsonl")
    shown = {1: "+1", 0: "0", -1: "-1", None: ""}
    for trace, row in list(zip(traces, rows, strict=True))[:12]:
        table = segment_table(trace, shown_labels(outcome.path, trace))
        assert table["label"].tolist() == [shown[label] for label in row["labels"]]


def test_the_column_shows_the_first_labeller_of_the_trace_and_old_files_their_own_labels(
    tmp_path,
):
    steps = (SegmentRecord(0, 0, 3, "A. "), SegmentRecord(1, 3, 5, "B."))
    trace = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A. B.", segments=steps)
    path = tmp_path / "t.jsonl"
    append_labels(path, [StepLabel("other", 0, 1, "ada"), StepLabel(trace.trace_id, 1, 0, "bo")])
    append_labels(path, [StepLabel(trace.trace_id, 0, -1, "cy")])
    assert shown_labels(path, trace) == {1: 0}  # bo labelled this trace first
    old = Trace(
        task=trace.task,
        response=trace.response,
        segments=tuple(
            SegmentRecord(s.index, s.start, s.end, s.text, rewards={"human_label": 1.0})
            for s in steps
        ),
    )
    assert shown_labels(tmp_path / "none.jsonl", old) == {0: 1, 1: 1}  # before the store
    assert segment_table(old)["reward"].isna().all()  # a human label is no reward
