"""The workbench's index of a trace file agrees with the library's reader, line for line."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest

from llenvs.traces import TraceFormatError, TraceReader, write_traces
from llenvs.workbench.files import TraceIndex

SAMPLE = Path(__file__).resolve().parents[2] / "sample_traces" / "leg_counting-smollm2.jsonl"


def _with_version(line: str, version: str) -> str:
    """``line`` (a trace's JSON) with its ``schema_version`` written as ``version``."""
    changed = re.sub(r'^\{"schema_version": \d+', f'{{"schema_version": {version}', line)
    assert changed != line
    return changed


def _read(path: Path) -> tuple[list[tuple[int, object]], list[int]]:
    reader = TraceReader(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traces = list(reader.numbered())
    return traces, [s.line for s in reader.skipped]


def test_the_index_and_the_reader_agree_on_a_sample_file_with_bad_lines(tmp_path):
    lines = SAMPLE.read_text().splitlines(keepends=True)
    bad_version = _with_version(lines[0], '"3"')
    path = tmp_path / "corrupt.jsonl"
    path.write_text("".join([lines[0], "not json\n", bad_version, *lines[1:], lines[0][:80]]))
    traces, skipped = _read(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        index = TraceIndex.scan(path)
    assert index.table["line"].tolist() == [n for n, _ in traces]
    assert [s.line for s in index.skipped] == skipped == [2, 3, len(lines) + 3]
    assert index.skipped[-1].torn
    assert [index.load(n) for n, _ in traces] == [t for _, t in traces]


def test_a_line_failing_the_schema_is_named_by_the_same_line_when_opened(tmp_path):
    lines = SAMPLE.read_text().splitlines(keepends=True)
    wrong = lines[1].replace('"terminal": false', '"terminal": "no"', 1)
    assert wrong != lines[1]
    path = tmp_path / "wrong.jsonl"
    path.write_text("".join([lines[0], wrong]))
    _, skipped = _read(path)
    index = TraceIndex.scan(path)
    assert skipped == [2] and index.table["line"].tolist() == [1, 2]
    with pytest.raises(TraceFormatError, match=r"wrong\.jsonl, line 2: .*terminal"):
        index.load(2)


def test_a_newer_schema_version_stops_the_index_with_the_readers_error(tmp_path):
    lines = SAMPLE.read_text().splitlines(keepends=True)
    path = tmp_path / "newer.jsonl"
    path.write_text(lines[0] + _with_version(lines[1], "99"))
    with pytest.raises(TraceFormatError) as library:
        list(TraceReader(path))
    with pytest.raises(TraceFormatError) as index:
        TraceIndex.scan(path)
    assert str(index.value) == str(library.value)
    assert "line 2: unknown trace schema_version 99" in str(index.value)


@pytest.mark.parametrize("version", [3, 4], ids=["as recorded (v3)", "written back (v4)"])
def test_the_lists_model_column_is_the_model_the_reader_reads(tmp_path, version):
    path = tmp_path / "lc.jsonl"
    if version == 4:
        write_traces(path, TraceReader(SAMPLE))
    else:
        path.write_text(SAMPLE.read_text())
    traces, _ = _read(path)
    index = TraceIndex.scan(path)
    assert index.table["model"].tolist() == [t.run.model_name for _, t in traces]
    assert set(index.table["model"]) == {"transformers/SmolLM2-135M-Instruct"}


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("task_index", 10**40, "trace.task.task_index: an integer out of range"),
        ("task_index", 2**63, "trace.task.task_index: an integer out of range"),
        ("correctness", 10**400, "trace.final_rewards.correctness: a number out of range"),
    ],
    ids=["task-10**40", "task-2**63", "reward-10**400"],
)
def test_a_number_the_schema_refuses_is_skipped_with_the_readers_reason(
    tmp_path, field, value, reason
):
    """Issue 50 item 1: the index kept task 10**40 and the trace list could not draw it."""
    lines = SAMPLE.read_text().splitlines(keepends=True)
    data = json.loads(lines[1])
    (data["task"] if field == "task_index" else data["final_rewards"])[field] = value
    path = tmp_path / "huge.jsonl"
    path.write_text("".join([lines[0], json.dumps(data) + "\n", lines[2]]))
    with pytest.warns(UserWarning) as caught:
        index = TraceIndex.scan(path)
    [skipped] = index.skipped
    _, read_skips = _read(path)
    assert skipped.line == 2 == read_skips[0] and skipped.reason.startswith(reason)
    reader = TraceReader(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        list(reader)
    assert reader.skipped == [skipped]  # the reader's reason, word for word
    assert index.table["line"].tolist() == [1, 3]
    assert [str(w.message) for w in caught] == [
        f"1 line(s) of {path} could not be read and were skipped: line 2: {skipped.reason}"
    ]


def test_the_largest_64_bit_task_index_and_a_large_finite_reward_are_kept(tmp_path):
    lines = SAMPLE.read_text().splitlines(keepends=True)
    data = json.loads(lines[0])
    data["task"]["task_index"] = 2**63 - 1
    data["final_rewards"]["correctness"] = 10**30
    path = tmp_path / "large.jsonl"
    path.write_text(json.dumps(data) + "\n")
    index = TraceIndex.scan(path)
    assert index.skipped == ()
    assert index.table["task"].tolist() == [2**63 - 1] and index.table["task"].dtype == "int64"
    trace = index.load(1)
    assert trace.task.task_index == 2**63 - 1 and trace.final_rewards["correctness"] == 1e30
