"""The workbench's index of a trace file agrees with the library's reader, line for line."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from llenvs.traces import TraceFormatError, TraceReader, write_traces
from llenvs.workbench.trace_index import TraceIndex

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
