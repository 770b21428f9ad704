"""Importers put a step file's human labels in the label store, never in traces; ``llenvs
export --labels`` writes them as PRM800K, ProcessBench or a HF dataset, and importing the
export gives the same labels back, under the same trace ids."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from llenvs.cli.main import main
from llenvs.traces import (
    SegmentRecord,
    StepLabel,
    TaskRecord,
    Trace,
    append_labels,
    labels_path,
    read_labels,
    read_traces,
    write_traces,
)
from llenvs.traces.importers import read_hf_rows
from tests.conftest import EXTERNAL, read_jsonl

STEP_FILE = EXTERNAL / "step_traces.jsonl"


def _run(*args):
    return main([str(arg) for arg in args])


def _values(labels, labeller):
    """``trace_id -> segment -> label`` of a labeller's latest labels."""
    return {
        trace_id: {segment: label.label for segment, label in steps.items()}
        for trace_id, steps in labels.latest(labeller).items()
    }


@pytest.fixture
def imported(tmp_path):
    """The 197 step traces imported with ``llenvs import processbench``."""
    out = tmp_path / "steps.jsonl"
    assert _run("import", "processbench", STEP_FILE, "-o", out) == 0
    return out


def test_import_puts_every_labelled_step_in_the_store_and_none_in_the_traces(tmp_path, capsys):
    imported = tmp_path / "steps.jsonl"
    assert _run("import", "processbench", STEP_FILE, "-o", imported) == 0
    rows = read_jsonl("step_traces.jsonl")
    said = capsys.readouterr().out
    labelled = sum(label is not None for row in rows for label in row["labels"])
    assert labelled == 1119
    assert f"; {labelled} step labels by prm800k, processbench to {labels_path(imported)}" in said
    text = imported.read_text()
    assert "human_label" not in text and "first_error_step" not in text
    traces = list(read_traces(imported))
    assert len(traces) == 197
    labels = read_labels(imported, trace_ids={t.trace_id for t in traces})
    assert labels.skipped == () and len(labels.history) == labelled
    assert labels.labellers() == ("prm800k", "processbench")  # the file's first row: PRM800K
    for trace, row in zip(traces, rows, strict=True):
        labeller = "prm800k" if row["dataset"] == "prm800k" else "processbench"
        steps = _values(labels, labeller)[trace.trace_id]
        expected = {n: label for n, label in enumerate(row["labels"]) if label is not None}
        assert steps == expected
    counts = Counter(label.labeller for label in labels.history)
    assert counts == {
        "processbench": sum(
            x is not None for r in rows if r["dataset"] != "prm800k" for x in r["labels"]
        ),
        "prm800k": sum(
            x is not None for r in rows if r["dataset"] == "prm800k" for x in r["labels"]
        ),
    }
    # Importing the same file again (appending, or replacing the traces) adds no label twice.
    store = labels_path(imported).read_bytes()
    assert _run("import", "processbench", STEP_FILE, "-o", imported) == 0
    assert "(1119 there already)" in capsys.readouterr().out
    assert _run("import", "processbench", STEP_FILE, "-o", imported, "--overwrite") == 0
    assert labels_path(imported).read_bytes() == store


def test_a_failed_import_leaves_no_labels_behind(tmp_path):
    source = tmp_path / "in.jsonl"
    record = {"question": {"problem": "q"}, "label": {"steps": []}}  # PRM800K: the wrong format
    source.write_text(STEP_FILE.read_text() + json.dumps(record) + "\n")
    out = tmp_path / "out.jsonl"
    assert _run("import", "processbench", source, "-o", out) == 2  # refused at its last line
    assert not out.exists() and not labels_path(out).exists()


def test_prm800k_export_and_import_give_the_same_labels_under_the_same_trace_ids(
    tmp_path, imported, capsys
):
    before = read_labels(imported)
    steps, back = tmp_path / "pb-labels.jsonl", tmp_path / "back.jsonl"
    capsys.readouterr()
    assert _run("export", imported, "--labels", "processbench", "--format", "prm800k",
                "-o", steps) == 0  # fmt: skip
    said = capsys.readouterr().out
    assert "exported 188 traces with the labels of processbench" in said
    assert "skipped 9 traces with no step labelled by processbench" in said
    rows = [json.loads(line) for line in steps.read_text().splitlines()]
    assert {row["labeller"] for row in rows} == {"processbench"}
    assert _run("import", "prm800k", steps, "-o", back) == 0
    after = read_labels(back)
    assert after.labellers() == ("processbench",)
    assert _values(after, "processbench") == _values(before, "processbench")
    originals = {t.trace_id: t for t in read_traces(imported)}
    for trace in read_traces(back):
        assert trace == originals[trace.trace_id]  # the trace whole, and no label in it


def test_processbench_export_and_import_give_the_first_error_back(tmp_path, imported, capsys):
    before = read_labels(imported)
    for labeller, count in (("processbench", 188), ("prm800k", 9)):
        rows_file, back = tmp_path / f"{labeller}.jsonl", tmp_path / f"{labeller}-back.jsonl"
        assert _run("export", imported, "--labels", labeller, "--format", "processbench",
                    "-o", rows_file) == 0  # fmt: skip
        rows = [json.loads(line) for line in rows_file.read_text().splitlines()]
        assert len(rows) == count
        assert all(isinstance(row["label"], int) and "labels" not in row for row in rows)
        assert _run("import", "processbench", rows_file, "-o", back) == 0
        original, again = _values(before, labeller), _values(read_labels(back), labeller)
        assert set(again) == set(original)  # the same trace ids
        for trace_id, steps in original.items():
            wrong = [s for s, label in sorted(steps.items()) if label == -1]
            first = wrong[0] if wrong else -1
            end = len(steps) if first == -1 else first
            # ProcessBench holds the first error: +1 before it, -1 on it, nothing after.
            implied = {s: 1 for s in range(end)} | ({first: -1} if first >= 0 else {})
            assert again[trace_id] == implied
            if labeller == "processbench":
                assert again[trace_id] == steps  # ProcessBench's own labels: exactly these
    pb = read_jsonl("step_traces.jsonl")
    exported = [json.loads(line) for line in (tmp_path / "processbench.jsonl").open()]
    by_id = {row["id"]: row for row in pb}
    assert all(row["label"] == by_id[row["id"]]["first_error_step"] for row in exported)


def test_hf_export_is_a_dataset_that_imports_back_with_the_same_labels(tmp_path, imported):
    before = read_labels(imported)
    folder, back = tmp_path / "labels.hf", tmp_path / "back.jsonl"
    assert _run("export", imported, "--labels", "prm800k", "--format", "hf", "-o", folder) == 0
    from datasets import load_from_disk

    dataset = load_from_disk(str(folder))
    assert len(dataset) == 9
    assert {"trace_id", "problem", "steps", "labels", "first_error_step", "labeller",
            "ground_truth_answer", "final_answer_correct"} <= set(dataset.column_names)  # fmt: skip
    rows = {row["id"]: row for row in read_jsonl("step_traces.jsonl")}
    for row in dataset:
        assert row["labels"] == rows[row["id"]]["labels"]
        assert row["first_error_step"] == rows[row["id"]]["first_error_step"]
    assert _run("import", "hf", folder, "-o", back) == 0
    assert _values(read_labels(back), "prm800k") == _values(before, "prm800k")
    assert [r.data["trace_id"] for r in read_hf_rows(folder)] == [
        t.trace_id for t in read_traces(back)
    ]
    # An existing output is refused, and replaced with --overwrite.
    assert _run("export", imported, "--labels", "processbench", "--format", "hf", "-o", folder) == 2
    assert len(load_from_disk(str(folder))) == 9
    assert _run("export", imported, "--labels", "processbench", "--format", "hf", "-o", folder,
                "--overwrite") == 0  # fmt: skip
    assert len(load_from_disk(str(folder))) == 188


def _two_traces(tmp_path):
    steps = (
        SegmentRecord(0, 0, 3, "A. "),
        SegmentRecord(1, 3, 6, "B. "),
        SegmentRecord(2, 6, 8, "C."),
    )
    labelled, unlabelled, unsettled = (
        Trace(task=TaskRecord("e", "a", {}, n, f"q{n}"), response="A. B. C.", segments=steps)
        for n in range(3)
    )
    path = tmp_path / "t.jsonl"
    write_traces(path, [labelled, unlabelled, unsettled])
    append_labels(
        path,
        [
            StepLabel(labelled.trace_id, 0, 1, "ada"),
            StepLabel(labelled.trace_id, 1, -1, "ada"),
            StepLabel(unsettled.trace_id, 2, -1, "ada"),  # steps 0 and 1 unlabelled
            StepLabel(unlabelled.trace_id, 0, 1, "bo"),  # another labeller's
        ],
    )
    return path, labelled, unsettled


def test_unlabelled_traces_are_skipped_with_a_count_never_written_as_all_correct(tmp_path, capsys):
    path, labelled, _ = _two_traces(tmp_path)
    out = tmp_path / "pb.jsonl"
    assert _run("export", path, "--labels", "ada", "--format", "processbench", "-o", out) == 0
    said = capsys.readouterr().out
    assert "exported 1 trace with the labels of ada" in said
    assert "1 trace with no step labelled by ada" in said
    assert "1 trace whose labels do not settle the first error" in said
    [row] = [json.loads(line) for line in out.read_text().splitlines()]
    assert (row["trace_id"], row["label"]) == (labelled.trace_id, 1)
    out = tmp_path / "steps.jsonl"
    assert _run("export", path, "--labels", "ada", "-o", out) == 0  # prm800k, the default
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["labels"] for row in rows] == [[1, -1, None], [None, None, -1]]
    assert [row["first_error_step"] for row in rows] == [1, 2]


def test_the_old_form_still_exports_and_bad_requests_are_refused(tmp_path, capsys):
    path, _, _ = _two_traces(tmp_path)
    out = tmp_path / "steps.jsonl"
    assert _run("export", "prm800k", path, "-o", out) == 0  # every trace, no labels
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 3 and all(row["labels"] == [None] * 3 for row in rows)
    capsys.readouterr()
    assert _run("export", path, "--labels", "cy", "-o", tmp_path / "x.jsonl") == 2
    err = capsys.readouterr().err
    assert "no labels by 'cy'" in err and "(labellers there: ada, bo)" in err
    assert _run("export", path, "--format", "hf", "-o", tmp_path / "x") == 2
    assert "--format hf needs --labels LABELLER" in capsys.readouterr().err
    assert _run("export", "prm800k", path, "--format", "hf", "-o", tmp_path / "x") == 2
    assert "give 'llenvs export FILE --format hf'" in capsys.readouterr().err
    assert _run("export", path, "--labels", "ada", "-o", out) == 2  # exists: refused
    assert "give --overwrite" in capsys.readouterr().err
    assert not (tmp_path / "x").exists() and not (tmp_path / "x.jsonl").exists()
