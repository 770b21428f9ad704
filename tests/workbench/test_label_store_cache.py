"""The label store as the app reads it (``cached_labels``): the same labels as ``read_labels``,
whoever appended them, parsing only the lines appended since the last read."""

from __future__ import annotations

import multiprocessing
import shutil
from pathlib import Path
from unittest import mock

import pytest

from llenvs.traces import StepLabel, append_labels, labels_path, read_labels
from llenvs.workbench.files import _label_store_cache as label_store_cache
from llenvs.workbench.files import cached_labels

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_traces" / "processbench-prm800k.jsonl"


def _append_in_another_process(trace_file: Path, labeller: str, count: int) -> None:
    context = multiprocessing.get_context("spawn")
    process = context.Process(target=_append_many, args=(str(trace_file), labeller, count))
    process.start()
    process.join(60)
    assert process.exitcode == 0


def _append_many(trace_file: str, labeller: str, count: int) -> None:
    for segment in range(count):
        append_labels(trace_file, [StepLabel("t", segment, 1, labeller)])


def test_the_sample_store_reads_as_read_labels_then_only_appended_lines_are_parsed(tmp_path):
    trace_file = tmp_path / "pb.jsonl"
    shutil.copy(labels_path(SAMPLE), labels_path(trace_file))
    assert cached_labels(trace_file) == read_labels(trace_file)
    assert len(cached_labels(trace_file).history) > 1000
    parse = label_store_cache.label_of_line
    with mock.patch.object(label_store_cache, "label_of_line", side_effect=parse) as calls:
        cached_labels(trace_file)
        assert calls.call_count == 0  # unchanged: nothing parsed
        append_labels(trace_file, [StepLabel("t", 0, 1, "ada"), StepLabel("t", 1, -1, "ada")])
        assert cached_labels(trace_file) == read_labels(trace_file)
        assert calls.call_count == 2  # the two new lines, not the thousand before them


@pytest.mark.slow  # starts an interpreter (a multiprocessing spawn)
def test_labels_appended_by_another_process_and_another_labeller_are_seen(tmp_path):
    trace_file = tmp_path / "runs.jsonl"
    append_labels(trace_file, [StepLabel("t", 0, 1, "ada")])
    assert [label.labeller for label in cached_labels(trace_file).history] == ["ada"]
    _append_in_another_process(trace_file, "bo", 3)
    labels = cached_labels(trace_file)
    assert labels == read_labels(trace_file)
    assert {s: label.label for s, label in labels.latest("bo")["t"].items()} == {0: 1, 1: 1, 2: 1}
    assert labels.latest("ada")["t"][0].label == 1


def test_a_replaced_store_is_read_whole_again(tmp_path):
    trace_file = tmp_path / "runs.jsonl"
    append_labels(trace_file, [StepLabel("t", 0, 1, "ada"), StepLabel("t", 1, 1, "ada")])
    assert len(cached_labels(trace_file).history) == 2
    store = labels_path(trace_file)
    # Shorter than before: read whole.
    store.write_bytes(store.read_bytes().splitlines(keepends=True)[0])
    assert [label.segment for label in cached_labels(trace_file).history] == [0]
    # Longer, but its first bytes changed (not an append): read whole, not added to.
    other = tmp_path / "other.jsonl"
    append_labels(other, [StepLabel("u", 5, -1, "bo"), StepLabel("u", 6, -1, "bo")])
    shutil.copy(labels_path(other), store)
    assert cached_labels(trace_file) == read_labels(trace_file)
    assert {label.trace_id for label in cached_labels(trace_file).history} == {"u"}
    store.unlink()
    assert cached_labels(trace_file).history == ()


def test_a_torn_last_line_waits_and_a_bad_line_is_named_and_skipped(tmp_path):
    trace_file = tmp_path / "runs.jsonl"
    append_labels(trace_file, [StepLabel("t", 0, 1, "ada")])
    store = labels_path(trace_file)
    whole = store.read_bytes()
    with store.open("ab") as handle:  # a writer half-way through its line
        handle.write(whole[:20])
    assert len(cached_labels(trace_file).history) == 1 and not cached_labels(trace_file).skipped
    with store.open("ab") as handle:  # ... and done
        handle.write(whole[20:])
    assert [label.segment for label in cached_labels(trace_file).history] == [0, 0]
    with store.open("ab") as handle:
        handle.write(b'{"trace_id": "t"}\n')
    append_labels(trace_file, [StepLabel("t", 1, -1, "ada")])
    with pytest.warns(UserWarning, match="line 3"):
        labels = cached_labels(trace_file)
    [skipped] = labels.skipped
    assert (skipped.path, skipped.line) == (str(store), 3)
    assert [label.segment for label in labels.history] == [0, 0, 1]
    with pytest.warns(UserWarning, match="line 3"):
        assert labels.history == read_labels(trace_file).history
