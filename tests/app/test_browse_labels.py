"""Browse shows the labels of the label store in the segment table's label column."""

from __future__ import annotations

from llenvs.cli.main import main
from llenvs.traces import StepLabel, append_labels, read_traces
from llenvs.workbench.files import TRACES_DIR_ENV
from tests.app.test_pages import open_page
from tests.conftest import EXTERNAL, read_jsonl


def test_browse_shows_the_stores_labels_of_an_imported_step_file(tmp_path, monkeypatch):
    monkeypatch.setenv(TRACES_DIR_ENV, str(tmp_path))
    out = tmp_path / "steps.jsonl"
    assert (
        main(["import", "processbench", str(EXTERNAL / "step_traces.jsonl"), "-o", str(out)]) == 0
    )
    at = open_page("browse", file=str(out))
    shown = {1: "+1", 0: "0", -1: "-1", None: ""}
    expected = [shown[label] for label in read_jsonl("step_traces.jsonl")[0]["labels"]]
    assert at.dataframe[1].value["label"].tolist() == expected
    # A label given later (the store changed, the trace file did not) shows on the next run.
    first = next(read_traces(out))
    append_labels(out, [StepLabel(first.trace_id, 12, -1, "prm800k")])
    at.run()
    assert at.dataframe[1].value["label"].tolist() == [*expected[:12], "-1"]
