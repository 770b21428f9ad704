"""The app's file rules without the app: roots, refusals, line limits, uploads and imports."""

from __future__ import annotations

import json
import os
import tracemalloc
from pathlib import Path

import pytest

from llenvs.traces import SegmentRecord, TaskRecord, Trace, TraceFormatError, write_traces
from llenvs.traces.files import MAX_LINE_ENV, max_line_bytes
from llenvs.workbench.files import (
    TRACE_LINE,
    TRACE_ROOTS_ENV,
    TRACES_DIR_ENV,
    TraceIndex,
    allowed_roots,
    import_into,
    inside_roots,
    lines_containing,
    load_line,
    resolve_trace_path,
    save_upload,
    trace_files,
)

MB = 2**20


def trace(text: str = "One. Two.") -> Trace:
    return Trace(
        task=TaskRecord("e", "a", {}, 0, "q"),
        response=text,
        segments=(SegmentRecord(0, 0, len(text), text),),
    )


@pytest.fixture()
def roots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A traces folder, an extra root and an outside folder, each with a trace file."""
    folders = {name: tmp_path / name for name in ("traces", "extra", "outside")}
    for name, folder in folders.items():
        folder.mkdir()
        write_traces(folder / f"{name}.jsonl", [trace()])
    monkeypatch.setenv(TRACES_DIR_ENV, str(folders["traces"]))
    monkeypatch.setenv(TRACE_ROOTS_ENV, str(folders["extra"]))
    return folders


def refused(path: str | os.PathLike[str]) -> str:
    with pytest.raises(PermissionError) as caught:
        resolve_trace_path(path)
    return str(caught.value)


def test_the_roots_are_the_traces_folder_then_the_extra_ones(roots, monkeypatch):
    assert allowed_roots() == (roots["traces"].resolve(), roots["extra"].resolve())
    both = os.pathsep.join([str(roots["extra"]), "", str(roots["extra"] / ".." / "outside")])
    monkeypatch.setenv(TRACE_ROOTS_ENV, both)
    assert allowed_roots()[1:] == (roots["extra"].resolve(), roots["outside"].resolve())


def test_files_inside_the_roots_resolve(roots):
    assert resolve_trace_path(roots["traces"] / "traces.jsonl") == roots["traces"].resolve() / (
        "traces.jsonl"
    )
    assert resolve_trace_path(roots["extra"] / "extra.jsonl").is_file()
    # a `..` that stays inside, and a branches sidecar next to an allowed file
    inside = roots["traces"] / "sub" / ".." / "traces.jsonl"
    assert resolve_trace_path(inside).name == "traces.jsonl"
    assert resolve_trace_path(roots["traces"] / "traces.branches.jsonl").parent == (
        roots["traces"].resolve()
    )


@pytest.mark.parametrize(
    "where",
    ["/etc/passwd", "home", "dotdot", "outside", "symlink", "symlinked_folder", "root_prefix"],
)
def test_paths_outside_the_roots_are_refused_naming_the_folders(roots, tmp_path, where):
    traces = roots["traces"]
    (tmp_path / "traces-evil").mkdir()
    (traces / "link.jsonl").symlink_to(roots["outside"] / "outside.jsonl")
    (traces / "folder").symlink_to(roots["outside"], target_is_directory=True)
    path = {
        "/etc/passwd": "/etc/passwd",
        "home": os.path.expanduser("~/.bashrc"),
        "dotdot": f"{traces}/../outside/outside.jsonl",
        "outside": str(roots["outside"] / "outside.jsonl"),
        "symlink": str(traces / "link.jsonl"),
        "symlinked_folder": str(traces / "folder" / "outside.jsonl"),
        "root_prefix": str(tmp_path / "traces-evil" / "x.jsonl"),  # shares a prefix, not a folder
    }[where]
    message = refused(path)
    assert message.startswith(f"`{path}` is outside the traces folders")
    assert str(traces.resolve()) in message and str(roots["extra"].resolve()) in message
    assert TRACE_ROOTS_ENV in message


def test_a_refusal_says_the_same_whether_or_not_the_file_exists(roots):
    there = refused(roots["outside"] / "outside.jsonl")
    missing = refused(roots["outside"] / "missing.jsonl")
    assert there.replace("outside.jsonl", "X") == missing.replace("missing.jsonl", "X")


def test_a_refused_path_cannot_break_out_of_its_code_span():
    with pytest.raises(PermissionError) as caught:
        inside_roots("/x`[a](http://e)`", [])
    message = str(caught.value)
    assert message.startswith("`/x'[a](http://e)'` is outside")


def test_trace_files_leave_out_symlinks_that_lead_out(roots):
    (roots["traces"] / "link.jsonl").symlink_to(roots["outside"] / "outside.jsonl")
    (roots["traces"] / "inner.jsonl").symlink_to(roots["traces"] / "traces.jsonl")
    assert [p.name for p in trace_files(roots["traces"])] == ["inner.jsonl", "traces.jsonl"]


def write_lines(path: Path, *lines: bytes) -> Path:
    path.write_bytes(b"".join(lines))
    return path


def test_a_line_over_the_limit_is_skipped_with_file_line_and_size(tmp_path):
    one = trace()
    good = json.dumps(one.to_dict()).encode() + b"\n"
    long_line = b'{"response": "' + b"x" * (3 * MB) + b'"}\n'
    path = write_lines(tmp_path / "big.jsonl", good, long_line, good)
    index = TraceIndex.scan(path, max_line=MB)
    assert index.table["line"].tolist() == [1, 3]
    (skipped,) = index.skipped
    assert skipped.line == 2 and str(skipped).startswith(f"{path}, line 2: ")
    assert f"{len(long_line):,} bytes" in skipped.reason and "1 MB" in skipped.reason
    assert index.load(3) == one
    assert lines_containing(path, "xxx", max_line=MB) == frozenset()
    with pytest.raises(TraceFormatError, match=r"line 2: .* longer than the line limit"):
        load_line(str(path), len(good), 2, max_line=MB)


def test_skipping_a_long_line_holds_at_most_the_limit_in_memory(tmp_path):
    good = json.dumps(trace().to_dict()).encode() + b"\n"
    path = write_lines(tmp_path / "big.jsonl", b'{"r": "' + b"y" * (40 * MB) + b'"}\n', good)
    tracemalloc.start()
    try:
        index = TraceIndex.scan(path, max_line=MB)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert index.table["line"].tolist() == [2] and index.skipped[0].line == 1
    assert peak < 8 * MB, f"peak {peak:,} bytes"


def test_a_real_70_mb_line_is_skipped_at_the_default_limit(tmp_path, monkeypatch):
    monkeypatch.delenv(MAX_LINE_ENV, raising=False)
    good = json.dumps(trace().to_dict()).encode() + b"\n"
    huge = 70 * 10**6
    with (tmp_path / "huge.jsonl").open("wb") as handle:
        handle.write(good + b'{"response": "')
        for _ in range(huge // MB):
            handle.write(b"z" * MB)
        handle.write(b'"}\n' + good)
    index = TraceIndex.scan(tmp_path / "huge.jsonl")
    assert index.table["line"].tolist() == [1, 3]
    assert index.skipped[0].line == 2 and "64 MB" in index.skipped[0].reason


def test_the_line_limit_is_set_in_megabytes_by_the_environment(monkeypatch):
    monkeypatch.setenv(MAX_LINE_ENV, "2")
    assert max_line_bytes() == 2 * MB
    monkeypatch.setenv(MAX_LINE_ENV, "-1")
    with pytest.raises(ValueError, match="LLENVS_MAX_LINE_MB must be a number"):
        max_line_bytes()


def test_uploads_never_replace_a_file(tmp_path):
    one, two = TRACE_LINE, TRACE_LINE + TRACE_LINE
    first = save_upload(tmp_path, "runs.jsonl", one)
    assert save_upload(tmp_path, "runs.jsonl", one) == first  # a rerun: the same file
    second = save_upload(tmp_path, "runs.jsonl", two)
    assert second.name == "runs-2.jsonl" and first.read_bytes() == one
    assert save_upload(tmp_path, "runs.jsonl", two) == second


def chat_file(path: Path, rows: int) -> Path:
    row = {"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "A."}]}
    path.write_text("".join(json.dumps(row) + "\n" for _ in range(rows)))
    return path


def test_an_import_goes_to_a_new_file_and_keeps_the_old_one(tmp_path):
    source = chat_file(tmp_path / "chat.jsonl", 2)
    folder = tmp_path / "traces"
    first = import_into(folder, "openai_chat", source)
    before = first.path.read_bytes()
    second = import_into(folder, "openai_chat", chat_file(source, 3))
    assert (first.path.name, second.path.name) == ("imported-chat.jsonl", "imported-chat-2.jsonl")
    assert first.path.read_bytes() == before and (first.count, second.count) == (2, 3)


@pytest.mark.parametrize("content", ["", "not json\n", '{"rows": 1}\n'])
def test_an_import_with_no_trace_is_refused_and_writes_nothing(tmp_path, content):
    source = tmp_path / "nothing.jsonl"
    source.write_text(content)
    folder = tmp_path / "traces"
    with pytest.raises(TraceFormatError, match=r"nothing to import: no row of nothing\.jsonl"):
        import_into(folder, "openai_chat", source)
    assert not folder.exists() or list(folder.iterdir()) == []
