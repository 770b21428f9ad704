"""Finding one trace of a trace file (or of its branches sidecar) by id or line number.

Example:
    >>> find_trace("/nonexistent.jsonl", "1")
    Traceback (most recent call last):
    ...
    FileNotFoundError: [Errno 2] No such file or directory: '/nonexistent.jsonl'

"""

from __future__ import annotations

import os
from contextlib import closing

from llenvs.traces.files._branches import read_branches
from llenvs.traces.files._reader import TraceReader
from llenvs.traces.files._skip_report import no_trace_reason, warn_skipped
from llenvs.traces.files._skipped_line import SkippedLine
from llenvs.traces.records import Trace, TraceFormatError

__all__ = ["find_trace"]


def find_trace(path: str | os.PathLike[str], which: str) -> Trace:
    """The trace of ``path`` (or of its branches) with id ``which``, or on line ``which``.

    Line numbers start at 1 and count every line of the file, skipped ones too, so a torn
    line does not shift them (they are the numbers Browse and the reader's messages show).

    The lines skipped on the way are one warning when the trace is found. When it is not, one
    error says why, and no warning: why the file has no trace at all (it is empty; or how many
    lines were skipped, and the first one's number and reason), else the asked-for line's own
    reason when that line was skipped, else which lines hold a trace and which were skipped.

    Example:
        >>> import tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "t.jsonl")
        >>> _ = open(path, "w").write("")
        >>> find_trace(path, "1")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.traces.TraceFormatError: .../t.jsonl is empty
        >>> find_trace("/nonexistent.jsonl", "1")
        Traceback (most recent call last):
        ...
        FileNotFoundError: [Errno 2] No such file or directory: '/nonexistent.jsonl'

    """
    skipped: list[SkippedLine] = []
    reader = TraceReader(path, report=skipped.extend)
    lines: list[int] = []
    found: Trace | None = None
    with closing(reader.numbered()) as numbered:  # closed: the pass reports what it skipped
        for number, trace in numbered:
            if trace.trace_id == which or str(number) == which:
                found = trace
                break
            lines.append(number)
    if found is None:
        found = next((t for t in read_branches(path) if t.trace_id == which), None)
    if found is not None:
        warn_skipped(skipped)
        return found
    if not lines:
        raise TraceFormatError(no_trace_reason(path, skipped))
    asked = next((line for line in skipped if str(line.line) == which), None)
    if asked is not None:
        raise TraceFormatError(str(asked))
    hint = " (line numbers start at 1)" if which == "0" else ""
    unread = f"; unreadable, skipped: {_ranges([s.line for s in skipped])}" if skipped else ""
    raise ValueError(
        f"{path}: no trace with id {which!r} nor on line {which}{hint}, nor in its branches "
        f"(lines with a trace: {_ranges(lines)}{unread})"
    )


def _ranges(numbers: list[int]) -> str:
    """``[1, 2, 3, 5]`` as ``"1-3, 5"``."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)
