"""Finding one trace of a trace file (or of its branches sidecar) by id or line number.

Example:
    >>> find_trace("/nonexistent.jsonl", "1")
    Traceback (most recent call last):
    ...
    FileNotFoundError: [Errno 2] No such file or directory: '/nonexistent.jsonl'

"""

from __future__ import annotations

import os

from llenvs.traces.branches import read_branches
from llenvs.traces.trace import Trace
from llenvs.traces.trace_reader import TraceReader

__all__ = ["find_trace"]


def find_trace(path: str | os.PathLike[str], which: str) -> Trace:
    """The trace of ``path`` (or of its branches) with id ``which``, or on line ``which``.

    Line numbers start at 1 and count every line of the file, skipped ones too, so a torn
    line does not shift them (they are the numbers Browse and the reader's messages show).

    Example:
        >>> find_trace("/nonexistent.jsonl", "1")
        Traceback (most recent call last):
        ...
        FileNotFoundError: [Errno 2] No such file or directory: '/nonexistent.jsonl'

    """
    reader = TraceReader(path)
    lines: list[int] = []
    for number, trace in reader.numbered():
        if trace.trace_id == which or str(number) == which:
            return trace
        lines.append(number)
    for trace in read_branches(path):
        if trace.trace_id == which:
            return trace
    readable = _ranges(lines) if lines else "none: it holds no readable trace"
    hint = " (line numbers start at 1)" if which == "0" else ""
    raise ValueError(
        f"{path}: no trace with id {which!r} nor on line {which}{hint}, nor in its branches "
        f"(lines with a trace: {readable})"
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
