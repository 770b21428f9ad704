"""Writing trace files: whole files atomically, single traces append-only.

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
import tempfile
from collections.abc import Iterable

from llenvs.traces.trace import Trace

__all__ = ["append_trace", "trace_line", "write_lines_atomically", "write_traces"]


def trace_line(trace: Trace) -> bytes:
    r"""One trace as one line of JSON (UTF-8, newline-terminated; non-finite numbers refused).

    Example:
        >>> from llenvs.traces.task_record import TaskRecord
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
        >>> from llenvs.traces.task_record import TaskRecord
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
    target = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(target))
    os.makedirs(folder, exist_ok=True)
    handle = tempfile.NamedTemporaryFile(
        "wb", dir=folder, prefix=f".{os.path.basename(target)}.", suffix=".tmp", delete=False
    )
    count = 0
    try:
        with handle:
            for line in lines:
                handle.write(line)
                count += 1
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, _file_mode(target))
        os.replace(handle.name, target)
    except BaseException:
        os.unlink(handle.name)
        raise
    _sync_folder(folder)
    return count


def append_trace(path: str | os.PathLike[str], trace: Trace) -> None:
    """Append one trace as one line, flushed and synced; the file and folder are made if missing.

    If the file ends in a torn line (an interrupted append), a newline closes it first, so the
    new trace stays readable and the torn line is reported as malformed when read.

    Example:
        >>> import tempfile, os
        >>> from llenvs.traces.task_record import TaskRecord
        >>> path = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> append_trace(path, t); append_trace(path, t)
        >>> len(open(path).readlines())
        2

    """
    line = trace_line(trace)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "a+b") as handle:
        handle.seek(0, os.SEEK_END)
        if handle.tell() > 0:
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) != b"\n":
                line = b"\n" + line
        handle.write(line)
        handle.flush()
        os.fsync(handle.fileno())


def _file_mode(target: str) -> int:
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
