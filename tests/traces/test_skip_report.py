"""Issue 50: one read of a file says what it skipped once; numbers the schema cannot hold are
refused by line and field; a file without a trace says why (empty, or its first bad line)."""

from __future__ import annotations

import json
import warnings

import pytest

from llenvs.traces import (
    TaskRecord,
    TraceFormatError,
    TraceReader,
    find_trace,
    no_trace_reason,
    skipped_summary,
    trace_line,
    write_traces,
)
from tests.traces.factories import make_trace

GOOD = trace_line(make_trace())


def _changed(**fields: object) -> bytes:
    """``GOOD`` with top-level or ``task.`` fields replaced."""
    data = json.loads(GOOD)
    for name, value in fields.items():
        if name.startswith("task."):
            data["task"][name.removeprefix("task.")] = value
        else:
            data[name] = value
    return json.dumps(data).encode() + b"\n"


@pytest.mark.parametrize(
    ("value", "kept"), [(2**63 - 1, True), (2**63, False), (-(2**63), False), (10**40, False)]
)
def test_a_task_index_must_fit_64_bits(tmp_path, value, kept):
    path = tmp_path / "runs.jsonl"
    path.write_bytes(GOOD + _changed(**{"task.task_index": value}))
    reader = TraceReader(path, report=lambda lines: None)
    traces = list(reader)
    assert len(traces) == (2 if kept else 1)
    if not kept:
        [skipped] = reader.skipped
        assert skipped.line == 2
        # -2**63 fits 64 bits, but a task index is never negative
        reason = (
            "expected an integer >= 0"
            if value < 0
            else "an integer out of range: it must fit in 64 bits"
        )
        assert reason in skipped.reason and "task.task_index" in skipped.reason


def test_a_writer_refuses_a_task_index_the_reader_would_refuse():
    with pytest.raises(TraceFormatError, match=r"^task_index: an integer out of range"):
        TaskRecord("e", "a", {}, 10**40, "q")


def test_numbers_beyond_a_float_are_refused_by_field(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_bytes(_changed(final_rewards={"correctness": 10**400}) + GOOD)
    reader = TraceReader(path, report=lambda lines: None)
    assert len(list(reader)) == 1
    assert reader.skipped[0].reason.startswith(
        "trace.final_rewards.correctness: a number out of range: it must be a finite float"
    )


def test_a_pass_says_its_skipped_lines_in_one_warning(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b"oops\n" * 300 + GOOD + b"\x00\x01\n" * 200)
    reader = TraceReader(path)
    with pytest.warns(UserWarning) as caught:
        assert len(list(reader)) == 1
    assert [str(w.message) for w in caught] == [
        f"500 line(s) of {path} could not be read and were skipped; the first: line 1: not JSON: "
        "Expecting value (column 1)"
    ]
    with pytest.warns(UserWarning) as again:  # each pass says its own
        list(reader.records())
    assert len(again) == 1 and len(reader.skipped) == 1000


def test_a_pass_closed_early_says_what_it_skipped_before_it_stopped(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b"oops\n" * 3 + GOOD + b"oops\n")
    told: list[list[int]] = []
    reader = TraceReader(path, report=lambda lines: told.append([s.line for s in lines]))
    stream = reader.numbered()
    assert next(stream)[0] == 4
    assert told == []  # the pass is still open
    stream.close()
    assert told == [[1, 2, 3]]


def test_find_trace_says_why_a_file_has_no_trace(tmp_path):
    empty, blank, binary = (tmp_path / f"{n}.jsonl" for n in ("empty", "blank", "binary"))
    empty.write_bytes(b"")
    blank.write_bytes(b"\n  \n")
    binary.write_bytes(b"\x00\xff\n" * 40)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the error says it all: no warning besides
        for path, said in [
            (empty, f"{empty} is empty"),
            (blank, f"{blank} holds only blank lines"),
            (
                binary,
                f"{binary} holds no readable trace: 40 line(s) could not be read and were "
                "skipped; the first: line 1: NUL bytes (0x00, first at column 1): binary data, "
                "not a line of JSON text",
            ),
        ]:
            with pytest.raises(TraceFormatError) as raised:
                find_trace(path, "1")
            assert str(raised.value) == said
            reader = TraceReader(path, report=lambda lines: None)
            assert list(reader) == []
            assert no_trace_reason(path, reader.skipped) == said  # what the app says too


def test_find_trace_names_a_skipped_line_that_was_asked_for(tmp_path):
    path = tmp_path / "runs.jsonl"
    write_traces(path, [make_trace()])
    with open(path, "ab") as handle:
        handle.write(_changed(**{"task.task_index": 10**40}) + GOOD)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(TraceFormatError) as raised:
            find_trace(path, "2")
        assert str(raised.value).startswith(
            f"{path}, line 2: trace.task.task_index: an integer out of range"
        )
        with pytest.raises(ValueError, match=r"lines with a trace: 1, 3; unreadable, skipped: 2"):
            find_trace(path, "4")
        assert find_trace(path, "1").task.task_index == 0  # found before the bad line: quiet
    with pytest.warns(UserWarning, match=r"^1 line\(s\) of .*: line 2: trace\.task\.task_index"):
        assert find_trace(path, "3") is not None


def test_the_summary_needs_a_line():
    with pytest.raises(ValueError, match="at least one skipped line"):
        skipped_summary("x.jsonl", [])
