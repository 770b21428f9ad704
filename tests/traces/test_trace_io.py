import json
import os
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llenvs.traces import (
    TraceFormatError,
    TraceReader,
    append_trace,
    read_traces,
    trace_line,
    write_traces,
)
from tests.traces.factories import make_trace, traces


def _lines(path):
    with open(path, "rb") as handle:
        return handle.read().split(b"\n")


def test_write_then_read_gives_identical_traces(tmp_path):
    path = tmp_path / "runs.jsonl"
    written = [make_trace(), make_trace(texts=("Only. ",)), make_trace(texts=())]
    assert write_traces(path, written) == 3
    assert list(read_traces(path)) == written
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(traces(), max_size=4))
def test_any_traces_round_trip_through_a_file(tmp_path, written):
    path = tmp_path / "any.jsonl"
    write_traces(path, written)
    reader = TraceReader(path)
    assert list(reader) == written
    assert reader.skipped == []


def test_reading_is_lazy(tmp_path):
    path = tmp_path / "runs.jsonl"
    write_traces(path, [make_trace(), make_trace()])
    with open(path, "ab") as handle:
        handle.write(b'{"schema_version": 99}\n')
    stream = read_traces(path)
    assert next(stream) == next(read_traces(path))  # the bad third line is not read yet
    next(stream)
    with pytest.raises(TraceFormatError):
        next(stream)


def test_a_failed_write_leaves_the_old_file_intact(tmp_path):
    path = tmp_path / "runs.jsonl"
    old = [make_trace()]
    write_traces(path, old)
    before = path.read_bytes()

    def failing():
        yield make_trace()
        raise RuntimeError("serialisation failed midway")

    with pytest.raises(RuntimeError, match="midway"):
        write_traces(path, failing())
    assert path.read_bytes() == before
    assert list(read_traces(path)) == old
    assert os.listdir(tmp_path) == ["runs.jsonl"]


def test_a_failed_first_write_leaves_no_file(tmp_path):
    def failing():
        raise RuntimeError("no traces")
        yield

    with pytest.raises(RuntimeError):
        write_traces(tmp_path / "new.jsonl", failing())
    assert os.listdir(tmp_path) == []


def test_append_adds_one_synced_line_each(tmp_path):
    path = tmp_path / "runs.jsonl"
    traces_ = [make_trace(), make_trace()]
    for trace in traces_:
        append_trace(path, trace)
    assert _lines(path) == [trace_line(t).rstrip(b"\n") for t in traces_] + [b""]
    assert list(read_traces(path)) == traces_


def test_a_torn_last_line_is_skipped_with_a_warning(tmp_path):
    path = tmp_path / "runs.jsonl"
    whole = [make_trace(), make_trace()]
    write_traces(path, whole)
    with open(path, "ab") as handle:
        handle.write(trace_line(make_trace())[:40])
    reader = TraceReader(path)
    with pytest.warns(UserWarning, match=r"1 line\(s\) of .*runs.jsonl .*: line 3: torn last line"):
        assert list(reader) == whole
    assert [(s.line, s.torn) for s in reader.skipped] == [(3, True)]


def test_a_torn_multibyte_character_is_a_torn_line(tmp_path):
    path = tmp_path / "runs.jsonl"
    write_traces(path, [make_trace()])
    with open(path, "ab") as handle:
        handle.write(trace_line(make_trace(texts=("× ",)))[:-3] + "×".encode()[:1])
    with pytest.warns(UserWarning, match="line 2: torn last line"):
        assert len(list(read_traces(path))) == 1


def test_a_last_line_without_newline_that_parses_is_kept(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_bytes(trace_line(make_trace()).rstrip(b"\n"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(list(read_traces(path))) == 1


def test_appending_after_a_torn_line_keeps_the_new_trace(tmp_path):
    path = tmp_path / "runs.jsonl"
    append_trace(path, make_trace())
    with open(path, "ab") as handle:
        handle.write(b'{"schema_version": 1, "trace')
    new = make_trace()
    append_trace(path, new)
    reader = TraceReader(path)
    with pytest.warns(UserWarning, match="line 2: not JSON"):
        loaded = list(reader)
    assert loaded[-1] == new and len(loaded) == 2
    assert [(s.line, s.torn) for s in reader.skipped] == [(2, False)]


def test_a_malformed_middle_line_is_named_and_the_rest_loads(tmp_path):
    path = tmp_path / "runs.jsonl"
    good = [make_trace(), make_trace(), make_trace()]
    broken = make_trace().to_dict()
    broken["segments"][0]["end"] = 999
    lines = [
        trace_line(good[0]),
        b"{not json\n",
        trace_line(good[1]),
        (json.dumps(broken) + "\n").encode(),
        b"\n",
        trace_line(good[2]),
    ]
    path.write_bytes(b"".join(lines))
    reader = TraceReader(path)
    with pytest.warns(UserWarning) as caught:
        assert list(reader) == good
    assert [(s.line, s.torn) for s in reader.skipped] == [(2, False), (4, False)]
    assert str(reader.skipped[0]).startswith(f"{path}, line 2: not JSON")
    assert "line 4: trace.segments[0]: span [0, 999)" in str(reader.skipped[1])
    assert [str(w.message) for w in caught] == [  # one warning, naming the first
        f"2 line(s) of {path} could not be read and were skipped; the first: "
        f"line 2: {reader.skipped[0].reason}"
    ]


def test_an_unknown_schema_version_is_refused_naming_file_and_line(tmp_path):
    path = tmp_path / "runs.jsonl"
    newer = make_trace().to_dict()
    newer["schema_version"] = 7
    path.write_bytes(trace_line(make_trace()) + (json.dumps(newer) + "\n").encode())
    with pytest.raises(TraceFormatError) as error:
        list(read_traces(path))
    assert str(error.value).startswith(
        f"{path}, line 2: unknown trace schema_version 7: this llenvs reads versions 1, 2"
    )


def test_a_missing_file_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        list(read_traces(tmp_path / "none.jsonl"))
