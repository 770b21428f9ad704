"""The workbench reads trace files and their sidecars through the library's readers only."""

from __future__ import annotations

import re
import shutil
import warnings
from pathlib import Path

import pytest

from llenvs.traces import SUPPORTED_SCHEMA_VERSIONS, TraceFormatError, TraceReader
from llenvs.workbench.trace_roots import TRACE_ROOTS_ENV
from tests.app.test_pages import open_page, texts

REPO = Path(__file__).resolve().parents[2]


def test_browse_shows_the_library_error_for_a_trace_of_a_newer_schema(tmp_path, monkeypatch):
    source = (REPO / "sample_traces" / "products-smollm2.jsonl").read_text().splitlines()
    newer = max(SUPPORTED_SCHEMA_VERSIONS) + 1
    line = re.sub(r'^\{"schema_version": \d+', f'{{"schema_version": {newer}', source[1])
    assert line != source[1]
    path = tmp_path / "newer.jsonl"
    path.write_text("\n".join([source[0], line, *source[2:]]) + "\n")
    monkeypatch.setenv(TRACE_ROOTS_ENV, str(tmp_path))
    with pytest.raises(TraceFormatError) as raised:
        list(TraceReader(path))
    library = str(raised.value)
    assert f"line 2: unknown trace schema_version {newer}" in library
    at = open_page("browse", file=str(path))
    assert not at.exception
    assert [e.value for e in at.error] == [f"TraceFormatError: {library}"], texts(at)


def test_browse_shows_the_stored_step_values_of_the_sample(tmp_path, monkeypatch):
    for name in ("products-smollm2.jsonl", "products-smollm2.analysis.jsonl"):
        shutil.copy(REPO / "sample_traces" / name, tmp_path / name)
    monkeypatch.setenv(TRACE_ROOTS_ENV, str(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        [line] = [
            n
            for n, t in TraceReader(tmp_path / "products-smollm2.jsonl").numbered()
            if t.trace_id.startswith("6638ab72ec")
        ]
    at = open_page("browse", file=str(tmp_path / "products-smollm2.jsonl"), trace=str(line))
    assert not at.error, [e.value for e in at.error]
    assert "48 rollouts in 3 rounds" in texts(at)
