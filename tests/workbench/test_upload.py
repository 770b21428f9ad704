"""Issue 24 item 10: an upload with no readable trace is refused, said clearly, and not saved."""

from __future__ import annotations

import os

import pytest

from llenvs.traces import TraceFormatError, read_traces
from llenvs.workbench.files import TRACE_LINE, save_upload, trace_files


def test_random_bytes_are_refused_with_what_was_expected_and_nothing_is_saved(tmp_path):
    garbage = os.urandom(4096).replace(b"\n", b"") + b"\n" + os.urandom(512)
    with pytest.raises(TraceFormatError) as caught:
        save_upload(tmp_path, "garbage.jsonl", garbage)
    message = str(caught.value)
    assert message.startswith("garbage.jsonl holds no readable trace, so it was not saved")
    assert "expected a llenvs trace file" in message and "Import" in message
    assert "; line 1: " in message
    assert list(tmp_path.iterdir()) == []  # neither the file nor its temporary


@pytest.mark.parametrize(
    ("data", "bad"),
    [
        (b"", "the file holds no line"),
        (b"\n\n", "the file holds no line"),
        (b'{"messages": []}\n', "line 1: "),
        (b"[1, 2]\n", "line 1: "),
    ],
)
def test_a_file_without_a_trace_is_refused(tmp_path, data, bad):
    with pytest.raises(TraceFormatError, match="holds no readable trace") as caught:
        save_upload(tmp_path, "runs.jsonl", data)
    assert bad in str(caught.value)
    assert trace_files(tmp_path) == []


def test_a_file_with_a_trace_and_a_bad_line_is_saved_as_browse_reads_it(tmp_path):
    saved = save_upload(tmp_path, "runs.jsonl", b"not json\n" + TRACE_LINE)
    assert trace_files(tmp_path) == [saved]
    with pytest.warns(UserWarning):
        assert len(list(read_traces(saved))) == 1
