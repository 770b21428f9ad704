"""The label store beside a trace file: append, read, latest, history, concurrent writers, bad
lines, ProcessBench's first error, and moving labels out of traces written before the store."""

from __future__ import annotations

import json
import multiprocessing
import warnings

import pytest

from llenvs.cli.main import main
from llenvs.traces import (
    Labels,
    SegmentRecord,
    StepLabel,
    TaskRecord,
    Trace,
    TraceReader,
    append_labels,
    first_error,
    first_error_labels,
    labels_path,
    read_labels,
    read_traces,
    settled_first_error,
    write_traces,
)
from llenvs.traces.importers import migrate_labels
from llenvs.traces.labels import append_new_labels


def _trace(steps=3, **fields):
    texts = [f"Step {n}. " for n in range(steps)]
    starts = [sum(len(t) for t in texts[:n]) for n in range(steps)]
    segments = tuple(
        SegmentRecord(n, starts[n], starts[n] + len(text), text, **fields)
        for n, text in enumerate(texts)
    )
    return Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="".join(texts), segments=segments)


def test_append_read_latest_history_and_cleared(tmp_path):
    trace_file = tmp_path / "runs.jsonl"
    assert read_labels(trace_file) == Labels(())  # no store yet: no labels, no error
    assert (
        append_labels(trace_file, [StepLabel("t", 0, 1, "ada"), StepLabel("t", 1, 1, "ada")]) == 2
    )
    assert append_labels(trace_file, [StepLabel("t", 1, -1, "ada", note="3 + 4 is not 8")]) == 1
    assert append_labels(trace_file, [StepLabel("t", 0, 0, "bo"), StepLabel("u", 2, -1, "bo")]) == 2
    assert append_labels(trace_file, [StepLabel("t", 0, None, "ada")]) == 1  # cleared
    assert labels_path(trace_file).is_file() and not trace_file.exists()  # never the trace file

    labels = read_labels(trace_file)
    assert labels.skipped == ()
    assert len(labels.history) == 6
    assert labels.labellers() == ("ada", "bo")
    ada = labels.latest("ada")
    assert {t: {s: x.label for s, x in steps.items()} for t, steps in ada.items()} == {"t": {1: -1}}
    assert ada["t"][1].note == "3 + 4 is not 8"
    bo = labels.latest("bo")
    assert {t: sorted(steps) for t, steps in bo.items()} == {"t": [0], "u": [2]}
    assert labels.latest("nobody") == {}
    # The history of one step: every labeller, in order, each line knowing what it replaced.
    changes = labels.changes("t", 0)
    assert [(c.labeller, c.label, c.previous) for c in changes] == [
        ("ada", 1, None),
        ("bo", 0, None),
        ("ada", None, 1),
    ]
    assert [(c.label, c.previous) for c in labels.changes("t", 1)] == [(1, None), (-1, 1)]
    assert all(c.time.endswith("+00:00") for c in labels.history)
    # A label cleared and given again: previous is None (nothing stood), then history goes on.
    append_labels(trace_file, [StepLabel("t", 0, -1, "ada")])
    assert read_labels(trace_file).changes("t", 0)[-1].previous is None
    assert read_labels(trace_file).latest("ada")["t"][0].label == -1


def test_labels_are_checked_before_anything_is_written(tmp_path):
    trace_file = tmp_path / "runs.jsonl"
    for bad in (
        dict(label=2),
        dict(label=True),
        dict(segment=-1),
        dict(labeller=""),
        dict(trace_id=""),
        dict(previous=5),
    ):
        with pytest.raises(ValueError):
            StepLabel(**{"trace_id": "t", "segment": 0, "label": 1, "labeller": "a", **bad})
    good = StepLabel("t", 0, 1, "ada")
    with pytest.raises(TypeError, match="StepLabel values"):
        append_labels(trace_file, [good, {"trace_id": "t", "segment": 1, "label": 1}])
    assert not labels_path(trace_file).exists()  # the good one was not written either
    assert append_labels(trace_file, []) == 0 and not labels_path(trace_file).exists()


def test_time_given_is_kept_and_previous_comes_from_the_store(tmp_path):
    trace_file = tmp_path / "runs.jsonl"
    append_labels(trace_file, [StepLabel("t", 0, 1, "ada", time="2020-01-01T00:00:00+00:00")])
    # previous given by the caller is not trusted: the store says what stood before.
    append_labels(trace_file, [StepLabel("t", 0, -1, "ada", previous=0)])
    first, second = read_labels(trace_file).history
    assert first.time == "2020-01-01T00:00:00+00:00"
    assert second.previous == 1


def _append_many(trace_file, writer, count, start):
    start.wait()
    for number in range(count):
        label = StepLabel("t", 0, (-1, 0, 1)[number % 3], "ada", note=f"{writer} {number}")
        append_labels(trace_file, [label])


@pytest.mark.slow
def test_two_processes_appending_at_once_lose_nothing(tmp_path):
    trace_file = str(tmp_path / "runs.jsonl")
    context = multiprocessing.get_context("fork")
    start = context.Event()
    writers = [
        context.Process(target=_append_many, args=(trace_file, name, 200, start))
        for name in ("one", "two")
    ]
    for writer in writers:
        writer.start()
    start.set()
    for writer in writers:
        writer.join()
    assert [writer.exitcode for writer in writers] == [0, 0]
    labels = read_labels(trace_file)
    assert labels.skipped == ()
    assert len(labels.history) == 400
    for name in ("one", "two"):
        mine = [label for label in labels.history if label.note.startswith(f"{name} ")]
        assert [label.note for label in mine] == [f"{name} {n}" for n in range(200)]
        assert [label.label for label in mine] == [(-1, 0, 1)[n % 3] for n in range(200)]
    # Both label the same step as the same labeller: each append read the store under the
    # lock, so every line's previous is the label of the line before it, whoever wrote it.
    history = labels.history
    assert [label.previous for label in history] == [None] + [x.label for x in history[:-1]]
    assert not (tmp_path / "runs.labels.jsonl.lock").exists()


def test_a_malformed_line_and_an_unknown_trace_id_are_named_skipped_and_the_rest_loads(tmp_path):
    trace_file = tmp_path / "runs.jsonl"
    append_labels(trace_file, [StepLabel("t1", 0, 1, "ada")])
    store = labels_path(trace_file)
    with store.open("a") as handle:
        handle.write("{not json\n")
        handle.write(json.dumps({"trace_id": "t1", "segment": 1, "label": 7, "labeller": "a"}))
        handle.write("\n")
        handle.write(json.dumps({"trace_id": "gone", "segment": 0, "label": 1, "labeller": "a"}))
        handle.write("\n")
    append_labels(trace_file, [StepLabel("t1", 2, -1, "ada")])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        labels = read_labels(trace_file, trace_ids={"t1"})
    assert [(label.segment, label.label) for label in labels.history] == [(0, 1), (2, -1)]
    assert [(s.path, s.line) for s in labels.skipped] == [(str(store), n) for n in (2, 3, 4)]
    assert "not JSON" in labels.skipped[0].reason
    assert "-1, 0, 1 or None" in labels.skipped[1].reason
    assert labels.skipped[2].reason == "unknown trace id 'gone' (not in the trace file)"
    assert len(caught) == 1  # one warning for the read, naming the lines
    message = str(caught[0].message)
    assert "skipped 3 lines" in message and f"{store}, line 2" in message
    # Without trace ids to check, the label of an unknown trace loads.
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert len(read_labels(trace_file).history) == 3


def test_a_torn_last_line_is_closed_by_the_next_append_and_skipped_when_read(tmp_path):
    trace_file = tmp_path / "runs.jsonl"
    append_labels(trace_file, [StepLabel("t", 0, 1, "ada")])
    store = labels_path(trace_file)
    with store.open("ab") as handle:
        handle.write(b'{"trace_id": "t", "segm')  # an interrupted write
    append_labels(trace_file, [StepLabel("t", 1, 1, "ada")])
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        labels = read_labels(trace_file)
    assert [label.segment for label in labels.history] == [0, 1]
    assert [skip.line for skip in labels.skipped] == [2]


def test_append_new_labels_stores_an_import_once_and_a_changed_label_again(tmp_path):
    trace_file = tmp_path / "runs.jsonl"
    imported = [StepLabel("t", n, 1, "processbench") for n in range(3)]
    assert append_new_labels(trace_file, imported) == 3
    assert append_new_labels(trace_file, imported) == 0
    append_labels(trace_file, [StepLabel("t", 1, -1, "processbench")])  # someone changed one
    assert append_new_labels(trace_file, imported) == 1  # the file's own label, again
    assert read_labels(trace_file).latest("processbench")["t"][1].label == 1


def test_first_error_settled_first_error_and_first_error_labels():
    assert first_error({}) is None
    assert first_error({0: 1, 1: 0, 2: 1}) == -1
    assert first_error({2: -1, 0: 1, 4: -1}) == 2
    assert first_error({0: StepLabel("t", 0, None, "a"), 1: StepLabel("t", 1, -1, "a")}) == 1
    assert settled_first_error({0: 1, 1: 0, 2: 1}, 3) == -1
    assert settled_first_error({0: 1, 2: 1}, 3) is None  # step 1 might be wrong
    assert settled_first_error({0: 1, 1: -1}, 5) == 1  # what follows the first error is moot
    assert settled_first_error({1: -1}, 5) is None  # step 0 might be the first error
    made = first_error_labels("t", 3, 6, "ada", note="sign flipped")
    assert [(x.segment, x.label) for x in made] == [(0, 1), (1, 1), (2, 1), (3, -1)]
    assert made[-1].note == "sign flipped"
    assert settled_first_error({x.segment: x for x in made}, 6) == 3
    assert first_error_labels("t", 0, 1, "ada")[0].label == -1
    with pytest.raises(ValueError, match="not in a trace of 2 segments"):
        first_error_labels("t", 2, 2, "ada")


def test_labels_written_into_traces_before_the_store_load_and_migrate_to_it(tmp_path, capsys):
    # A file as llenvs import processbench wrote it before the store: labels as step rewards.
    old = _trace(3)
    segments = tuple(
        SegmentRecord(s.index, s.start, s.end, s.text, rewards={"human_label": float(v)})
        for s, v in zip(old.segments, (1, 1, -1), strict=True)
    )
    old = Trace(
        task=TaskRecord("gsm8k", "processbench", {}, 0, "q"),
        response=old.response,
        segments=segments,
        metadata={"imported_from": "processbench/gsm8k", "first_error_step": 2},
    )
    plain = _trace(2)
    path = tmp_path / "old.jsonl"
    write_traces(path, [old, plain])
    with path.open("ab") as handle:
        handle.write(b"not a trace\n")
    untouched = [line for line in path.read_bytes().splitlines(keepends=True)][1:]
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert [t.trace_id for t in TraceReader(path)] == [old.trace_id, plain.trace_id]

    assert main(["labels", "migrate", str(path)]) == 0
    assert "moved the labels of 1 trace" in capsys.readouterr().out
    labels = read_labels(path, trace_ids={old.trace_id, plain.trace_id})
    latest = labels.latest("processbench")[old.trace_id]
    assert {s: x.label for s, x in latest.items()} == {0: 1, 1: 1, 2: -1}
    assert b"human_label" not in path.read_bytes()
    lines = path.read_bytes().splitlines(keepends=True)
    assert lines[1:] == untouched  # the other lines, a bad one too, kept byte for byte
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        [moved, again] = read_traces(path)
    assert moved.trace_id == old.trace_id and "first_error_step" not in moved.metadata
    assert again == plain
    assert migrate_labels(path).traces == 0  # done: nothing left to move
    assert len(read_labels(path).history) == 3


def test_previous_is_found_for_a_hand_written_line_with_an_escaped_trace_id(tmp_path):
    trace_file = tmp_path / "runs.jsonl"
    line = {"trace_id": "trøce", "segment": 0, "label": 0, "labeller": "ada"}
    labels_path(trace_file).write_text(json.dumps(line) + "\n")  # "tr\u00f8ce", escaped
    append_labels(trace_file, [StepLabel("trøce", 0, 1, "ada")])
    assert [(x.label, x.previous) for x in read_labels(trace_file).history] == [(0, None), (1, 0)]
