"""Writing trace files: whole files atomically, appends atomically or line by line.

Every write holds the file's advisory lock (``file_lock``) from its first read to its rename or
last byte, so writers in several processes (two sessions, the app and the CLI) never interleave
lines nor lose one another's appends.

Example:
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
    >>> write_traces(path, [])
    0
    >>> os.path.getsize(path)
    0

"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO

from llenvs.traces.files._crash_point import crash_point
from llenvs.traces.files._file_lock import file_lock
from llenvs.traces.files._sidecar import Sidecar, sidecar_path
from llenvs.traces.files._skipped_line import SkippedLine
from llenvs.traces.records import Trace

__all__ = [
    "append_lines_atomically",
    "append_trace",
    "append_traces",
    "remove_leftover_temporaries",
    "set_aside_lines",
    "skipped_path",
    "trace_line",
    "write_lines_atomically",
    "write_traces",
]

_COPY_CHUNK = 1 << 20
"""Bytes copied at a time when an append rewrites a file through a temporary copy."""


def trace_line(trace: Trace) -> bytes:
    r"""One trace as one line of JSON (UTF-8, newline-terminated; non-finite numbers refused).

    Example:
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> trace_line(t).endswith(b"\n"), trace_line(t).count(b"\n")
        (True, 1)

    """
    text = json.dumps(trace.to_dict(), ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8")


def write_traces(path: str | os.PathLike[str], traces: Iterable[Trace]) -> int:
    """Write ``traces`` to ``path`` atomically; the number written.

    The lines go to a temporary file in the same folder, synced, then renamed over ``path``: a
    failure midway (an error while producing or serialising a trace, a crash) leaves any old
    file as it was. Missing folders on the way are created.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> write_traces(path, [t, t])
        2

    """
    return write_lines_atomically(path, (trace_line(trace) for trace in traces))


def write_lines_atomically(path: str | os.PathLike[str], lines: Iterable[bytes]) -> int:
    r"""Write ``lines`` to ``path`` through a synced temporary file and a rename; their number.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "new", "rows.jsonl")
        >>> write_lines_atomically(path, [b"{}\n"]), open(path).read()
        (1, '{}\n')

    """
    return _replace(path, lines, keep_old=False)


def append_traces(path: str | os.PathLike[str], traces: Iterable[Trace]) -> int:
    """Append ``traces`` to ``path`` atomically (all or none of them); the number appended.

    A missing file is created. The old bytes and the new lines go to a temporary file that is
    renamed over ``path`` only once every trace is written, so a failure midway leaves the old
    file byte-identical.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> append_traces(path, [t]), append_traces(path, [t, t]), len(open(path).readlines())
        (1, 2, 3)

    """
    return append_lines_atomically(path, (trace_line(trace) for trace in traces))


def append_lines_atomically(path: str | os.PathLike[str], lines: Iterable[bytes]) -> int:
    r"""Append ``lines`` to ``path`` through a synced temporary copy and a rename; their number.

    A torn last line in the old file (no newline) is closed with one first, so it stays a line
    of its own.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "rows.jsonl")
        >>> _ = open(path, "wb").write(b"torn")
        >>> append_lines_atomically(path, [b"{}\n"]), open(path).read()
        (1, 'torn\n{}\n')

    """
    return _replace(path, lines, keep_old=True)


def _replace(path: str | os.PathLike[str], lines: Iterable[bytes], *, keep_old: bool) -> int:
    """Write (the old bytes, when ``keep_old``, then) ``lines`` to a temp file renamed to path.

    The file's lock is held throughout, so a concurrent append cannot slip in between the copy
    and the rename (and be lost).
    """
    target = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(target))
    os.makedirs(folder, exist_ok=True)
    with file_lock(target):
        remove_leftover_temporaries(target)
        handle = tempfile.NamedTemporaryFile(
            "wb", dir=folder, prefix=f".{os.path.basename(target)}.", suffix=".tmp", delete=False
        )
        count = 0
        try:
            with handle:
                if keep_old:
                    _copy_old(target, handle)
                for line in lines:
                    handle.write(line)
                    count += 1
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(handle.name, file_mode(target))
            crash_point("replace:before-rename")
            os.replace(handle.name, target)
        except BaseException:
            os.unlink(handle.name)
            raise
        crash_point("replace:after-rename")
        _sync_folder(folder)
    return count


def remove_leftover_temporaries(path: str | os.PathLike[str]) -> list[str]:
    """Remove the temporary files a killed writer of ``path`` left beside it; their names.

    Call it holding ``file_lock(path)``: every writer holds that lock while its temporary file
    exists, so any temporary of ``path`` found then belongs to a writer that died before its
    rename (the file itself is intact: old bytes, or complete new ones). Only names of the
    exact form ``.<name>.<8 characters>.tmp`` are removed, never another file's temporaries.

    Example:
        >>> import tempfile, os
        >>> folder = tempfile.mkdtemp()
        >>> for name in (".runs.jsonl.ab_c1234.tmp", ".runs.jsonl.x.jsonl.ab_c1234.tmp"):
        ...     open(os.path.join(folder, name), "w").close()
        >>> remove_leftover_temporaries(os.path.join(folder, "runs.jsonl"))
        ['.runs.jsonl.ab_c1234.tmp']
        >>> os.listdir(folder)
        ['.runs.jsonl.x.jsonl.ab_c1234.tmp']

    """
    target = os.path.abspath(os.fspath(path))
    folder, name = os.path.split(target)
    pattern = re.compile(rf"\.{re.escape(name)}\.[a-z0-9_]{{8}}\.tmp")
    removed = []
    try:
        entries = os.listdir(folder)
    except FileNotFoundError:
        return []
    for entry in sorted(entries):
        if pattern.fullmatch(entry):
            try:
                os.unlink(os.path.join(folder, entry))
            except FileNotFoundError:
                continue
            removed.append(entry)
    return removed


def _copy_old(target: str, handle: IO[bytes]) -> None:
    """Copy the file at ``target`` (if any) into ``handle``, closing a torn last line."""
    try:
        old = open(target, "rb")
    except FileNotFoundError:
        return
    with old:
        shutil.copyfileobj(old, handle, _COPY_CHUNK)
        if old.tell() > 0:
            old.seek(-1, os.SEEK_END)
            if old.read(1) != b"\n":
                handle.write(b"\n")


def skipped_path(path: str | os.PathLike[str]) -> Path:
    """Where the unreadable lines of a trace file are kept (``Sidecar.SKIPPED``, beside it).

    Example:
        >>> skipped_path("out/results.jsonl").as_posix(), skipped_path("r.json").name
        ('out/results.skipped.jsonl', 'r.json.skipped.jsonl')

    """
    return sidecar_path(path, Sidecar.SKIPPED)


def set_aside_lines(path: str | os.PathLike[str], skipped: Sequence[SkippedLine]) -> Path | None:
    r"""Append the raw lines of ``path`` that ``skipped`` names to ``skipped_path(path)``.

    Call it holding ``file_lock(path)``, before rewriting ``path`` without those lines: they are
    appended (never replacing what an earlier call kept), newline-terminated and synced, under
    the skipped file's lock. A line the skipped file already holds byte for byte is not
    appended again, so setting aside anew after a crash before the rewrite keeps one copy.
    Returns the file they went to, or None when there was nothing to keep.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "results.jsonl")
        >>> _ = open(path, "wb").write(b'{"ok": 1}\nnot json\n')
        >>> kept = set_aside_lines(path, [SkippedLine(path, 2, "not JSON")])
        >>> kept.name, kept.read_bytes()
        ('results.skipped.jsonl', b'not json\n')
        >>> _ = set_aside_lines(path, [SkippedLine(path, 2, "not JSON")])  # again: kept once
        >>> kept.read_bytes(), set_aside_lines(path, []) is None
        (b'not json\n', True)

    """
    wanted = {line.line for line in skipped}
    if not wanted:
        return None
    kept: list[bytes] = []
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if number in wanted:
                kept.append(raw if raw.endswith(b"\n") else raw + b"\n")
    target = skipped_path(path)
    with file_lock(target), open(target, "a+b") as handle:
        handle.seek(0)
        already = set(handle)
        handle.seek(0, os.SEEK_END)
        if handle.tell() > 0:
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) != b"\n":
                handle.write(b"\n")
        handle.writelines(line for line in kept if line not in already)
        handle.flush()
        os.fsync(handle.fileno())
    crash_point("aside:after")
    return target


def append_trace(path: str | os.PathLike[str], trace: Trace) -> None:
    """Append one trace as one line, flushed and synced; the file and folder are made if missing.

    If the file ends in a torn line (an interrupted append), a newline closes it first, so the
    new trace stays readable and the torn line is reported as malformed when read. The file's
    lock is held from that check to the sync, so appends from several processes never
    interleave.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> append_trace(path, t); append_trace(path, t)
        >>> len(open(path).readlines())
        2

    """
    line = trace_line(trace)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with file_lock(path), open(path, "a+b") as handle:
        handle.seek(0, os.SEEK_END)
        if handle.tell() > 0:
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) != b"\n":
                line = b"\n" + line
        crash_point("append:torn", lambda: _write_synced(handle, line[: len(line) // 2]))
        _write_synced(handle, line)
        crash_point("append:after")


def _write_synced(handle: IO[bytes], data: bytes) -> None:
    """Write ``data``, flush and sync it."""
    handle.write(data)
    handle.flush()
    os.fsync(handle.fileno())


def file_mode(target: str) -> int:
    """The permissions for a rewritten file: the old file's, else the umask's default."""
    try:
        return os.stat(target).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _sync_folder(folder: str) -> None:
    """Make a rename durable where the platform allows syncing a folder."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
