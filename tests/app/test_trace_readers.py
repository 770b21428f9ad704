"""The workbench reads trace files and their sidecars through the library's readers only, and
says what the command line says about a bad line or a file without a trace."""

from __future__ import annotations

import json
import random
import re
import shutil
import warnings
from pathlib import Path

import pandas as pd
import pytest
import streamlit as st

from llenvs.cli.main import main
from llenvs.traces import (
    SUPPORTED_SCHEMA_VERSIONS,
    TraceFormatError,
    TraceReader,
    find_trace,
    trace_line,
)
from llenvs.ui.browse import _page as browse_view
from llenvs.workbench import BrowseLocation
from llenvs.workbench.files import TRACE_ROOTS_ENV, TRACES_DIR_ENV, TraceIndex
from tests.app.test_pages import open_page, texts
from tests.traces.factories import make_trace

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


# Issue 50, items 1 and 3: a line the reader refuses is named by its number, with the reason, in
# Browse and in `llenvs analyze` alike; a file without a trace says why, once; an error drawing
# one trace is a message naming file and line, and the rest of the page keeps working.


def _line(**changes: object) -> str:
    """A trace line (JSON text, no newline) with ``changes`` applied: ``"a.b": value``."""
    data = json.loads(trace_line(make_trace()))
    for dotted, value in changes.items():
        *parents, key = dotted.split(".")
        target = data
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        target[key] = value
    return json.dumps(data)


def _analyze(path: Path, trace: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """What ``llenvs analyze FILE --trace N --budget 0`` prints: its warnings, then stderr."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status = main(["analyze", str(path), "--trace", trace, "--budget", "0"])
    said = [f"llenvs: warning: {w.message}" for w in caught]
    err = capsys.readouterr().err.splitlines()  # a page opened before may have logged there
    errors = [line for line in err if line.startswith("llenvs analyze: error: ")]
    assert (status == 2) == bool(errors), (status, err)
    return said + errors


REFUSED = {
    "task.task_index": (10**40, "trace.task.task_index: an integer out of range"),
    "final_rewards.correctness": (
        10**400,
        "trace.final_rewards.correctness: a number out of range: it must be a finite float",
    ),
}
"""Fields of the trace list given a number the schema cannot hold, and the reader's reason."""


@pytest.mark.parametrize("field", sorted(REFUSED))
def test_a_line_with_a_number_out_of_range_is_named_in_browse_and_analyze_alike(
    field, tmp_path, monkeypatch, capsys
):
    value, reason = REFUSED[field]
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join([_line(), _line(**{field: value}), _line()]) + "\n")
    monkeypatch.setenv(TRACE_ROOTS_ENV, str(tmp_path))
    [cli] = _analyze(path, "2", capsys)  # one line: the asked-for line, its reason
    assert cli.startswith(f"llenvs analyze: error: {path}, line 2: {reason}")
    said = cli.removeprefix(f"llenvs analyze: error: {path}, ")
    at = open_page("browse", file=str(path))
    assert not at.error, texts(at)
    [warning] = [w.value for w in at.warning]
    assert warning == f"1 line(s) of runs.jsonl could not be read and were skipped: {said}"
    assert "2 of 2 traces match" in texts(at)
    assert at.dataframe[0].value["line"].tolist() == [1, 3]  # the good ones, listed
    at = open_page("browse", file=str(path), trace="3")
    assert not at.error and at.subheader[0].value == "leg_counting · task 0 · line 3"
    [cli] = _analyze(path, "3", capsys)  # the good line reads, and the bad one is one warning
    assert cli == f"llenvs: warning: {warning.replace('runs.jsonl', str(path), 1)}"


def test_a_token_id_beyond_64_bits_is_named_when_its_trace_is_opened(tmp_path, monkeypatch, capsys):
    """The trace list reads only what it shows; the rest of a line is read when it is opened."""
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join([_line(), _line(**{"segments.0.token_ids": [1, 2**64]})]) + "\n")
    monkeypatch.setenv(TRACE_ROOTS_ENV, str(tmp_path))
    [cli] = _analyze(path, "2", capsys)
    said = f"{path}, line 2: trace.segments[0].token_ids[1]: an integer out of range"
    assert cli.startswith(f"llenvs analyze: error: {said}")
    at = open_page("browse", file=str(path), trace="2")
    assert [e.value for e in at.error] == [cli.removeprefix("llenvs analyze: error: ")]
    assert at.dataframe[0].value["line"].tolist() == [1, 2]
    at.button(key="nav-p").click().run()
    assert not at.error and at.subheader[0].value == "leg_counting · task 0 · line 1"


def test_a_large_finite_reward_is_shown_by_browse_and_read_by_analyze(
    tmp_path, monkeypatch, capsys
):
    """10**30 is the float 1e+30: the schema holds it, so the reader keeps it, Browse shows it."""
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join([_line(), _line(**{"final_rewards.correctness": 10**30})]) + "\n")
    monkeypatch.setenv(TRACE_ROOTS_ENV, str(tmp_path))
    assert find_trace(path, "2").final_rewards["correctness"] == 1e30
    assert _analyze(path, "2", capsys) == []
    at = open_page("browse", file=str(path), trace="2")
    assert not at.error and not at.warning, texts(at)
    assert "final rewards: correctness 1e+30, format 1" in texts(at)
    assert at.dataframe[0].value["reward"].tolist() == [1.0, 1e30 + 1]


def test_an_empty_file_says_it_is_empty_once_in_browse_and_analyze(tmp_path, monkeypatch, capsys):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    monkeypatch.setenv(TRACE_ROOTS_ENV, str(tmp_path))
    assert _analyze(path, "1", capsys) == [f"llenvs analyze: error: {path} is empty"]
    at = open_page("browse", file=str(path))
    assert [w.value for w in at.warning] == ["empty.jsonl is empty"]
    assert not at.info and not at.error and not at.dataframe, texts(at)
    assert "No trace matches" not in texts(at) and "traces match" not in texts(at)


def test_a_binary_file_says_the_count_and_the_first_bad_line_once(tmp_path, monkeypatch, capsys):
    rng = random.Random(50)
    rows = [rng.randbytes(80).replace(b"\n", b" ") + b"\n" for _ in range(500)]
    rows[0] = b"\x00" + rows[0][1:]  # line 1 is binary for certain: its reason is known
    path = tmp_path / "random.jsonl"
    path.write_bytes(b"".join(rows))
    monkeypatch.setenv(TRACE_ROOTS_ENV, str(tmp_path))
    first = "line 1: NUL bytes (0x00, first at column 1): binary data, not a line of JSON text"
    said = (
        "holds no readable trace: 500 line(s) could not be read and were skipped; "
        f"the first: {first}"
    )
    assert _analyze(path, "1", capsys) == [f"llenvs analyze: error: {path} {said}"]
    at = open_page("browse", file=str(path))
    assert [w.value for w in at.warning] == [f"random.jsonl {said}"]
    assert not at.info and not at.error and not at.dataframe, texts(at)
    assert "No trace matches" not in texts(at)
    assert at.code[0].value.count("\n") == 199  # the expander lists the first 200 lines


def test_a_truncated_upload_says_where_it_was_saved_and_the_line_it_skips(tmp_path, monkeypatch):
    whole = trace_line(make_trace()) * 2
    torn = whole + trace_line(make_trace())[:100]  # an upload cut short mid-line
    monkeypatch.setenv(TRACES_DIR_ENV, str(tmp_path))
    at = open_page("home")
    at.file_uploader(key="upload-traces").set_value(("runs.jsonl", torn, "application/jsonl"))
    at.run()
    assert not at.exception and not at.error, texts(at)
    saved = tmp_path / "runs.jsonl"
    assert saved.read_bytes() == torn
    [warning] = [w.value for w in at.warning]
    assert warning.startswith(
        f"Saved as {saved}, but 1 line(s) of runs.jsonl could not be read and were skipped: "
        "line 3: torn last line (an interrupted write): not JSON"
    )
    assert not [s.value for s in at.success if "Saved as" in s.value]
    at.file_uploader(key="upload-traces").set_value(("whole.jsonl", whole, "application/jsonl"))
    at.run()
    assert [s.value for s in at.success] == [f"Saved as {tmp_path / 'whole.jsonl'}"]
    assert not [w.value for w in at.warning if "Saved as" in w.value]


def test_an_error_drawing_one_trace_names_file_and_line_and_the_page_goes_on(tmp_path, monkeypatch):
    """The first trace's step values draw a table Arrow cannot hold (the issue's crash, made by
    Streamlit itself); the guard says it, and the list, the buttons and line 2 still work."""
    path = tmp_path / "runs.jsonl"
    path.write_text(f"{_line()}\n{_line()}\n")
    monkeypatch.setenv(TRACE_ROOTS_ENV, str(tmp_path))
    drawn = browse_view.step_values_panel

    def panel(file: str, trace: object, here: BrowseLocation, labels: object) -> None:
        if here.line == 1:
            st.dataframe(pd.DataFrame({"x": [10**40]}))
        else:
            drawn(file, trace, here, labels)

    monkeypatch.setattr(browse_view, "step_values_panel", panel)
    at = open_page("browse", file=str(path))
    [error] = [e.value for e in at.error]
    assert error.startswith(
        f"{path}, line 1: could not show this trace: StreamlitDataframeConversionError: "
    )
    assert "too large to convert" in error
    assert at.subheader[0].value == "leg_counting · task 0 · line 1"  # drawn before the error
    assert at.dataframe[0].value["line"].tolist() == [1, 2]  # the list still works
    at.button(key="nav-n").click().run()
    assert not at.error and at.subheader[0].value == "leg_counting · task 0 · line 2"


def test_a_trace_that_fails_the_schema_says_what_the_library_says(tmp_path, monkeypatch):
    path = tmp_path / "runs.jsonl"
    path.write_text(f"{_line()}\n{_line(**{'segments.0.terminal': 'no'})}\n")
    monkeypatch.setenv(TRACE_ROOTS_ENV, str(tmp_path))
    with pytest.raises(TraceFormatError) as raised:
        TraceIndex.scan(path).load(2)
    at = open_page("browse", file=str(path), trace="2")
    assert [e.value for e in at.error] == [str(raised.value)]  # the file, the line, the field
    assert str(raised.value).startswith(f"{path}, line 2: trace.segments[0].terminal")
    assert at.dataframe[0].value["line"].tolist() == [1, 2]
