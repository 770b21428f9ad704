r"""What a read of a trace file says about the lines it skipped: one sentence, the same everywhere.

A pass over a file that skipped lines says so once (``warn_skipped``: the CLI prints it as one
line), with the count and the first skipped line's number and reason; the app shows the same
sentence (``skipped_summary``). A file that gave no trace at all says why (``no_trace_reason``):
it is empty, holds only blank lines, or every line was skipped (the first one named).

Example:
    >>> lines = [SkippedLine("/d/runs.jsonl", n, "not JSON") for n in (2, 5)]
    >>> skipped_summary("runs.jsonl", lines)
    '2 line(s) of runs.jsonl could not be read and were skipped; the first: line 2: not JSON'

"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence

from llenvs.traces.files._skipped_line import SkippedLine

__all__ = ["no_trace_reason", "skipped_summary", "warn_skipped"]


def skipped_summary(shown: str, lines: Sequence[SkippedLine]) -> str:
    """One sentence for the ``lines`` skipped in the file ``shown`` (a path or a name).

    Example:
        >>> skipped_summary("t.jsonl", [SkippedLine("t.jsonl", 3, "torn last line", torn=True)])
        '1 line(s) of t.jsonl could not be read and were skipped: line 3: torn last line'

    """
    if not lines:
        raise ValueError("skipped_summary needs at least one skipped line, got none")
    unit = lines[0].unit
    return f"{len(lines)} {unit}(s) of {shown} could not be read and were skipped{_first(lines)}"


def no_trace_reason(
    path: str | os.PathLike[str], lines: Sequence[SkippedLine], shown: str | None = None
) -> str:
    r"""Why the file ``path``, from which a full read gave no trace, has none.

    ``lines``: the lines that read skipped; ``shown``: how to name the file (default: ``path``).

    Example:
        >>> import tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "t.jsonl")
        >>> _ = open(path, "w").write("")
        >>> no_trace_reason(path, [], "t.jsonl")
        't.jsonl is empty'
        >>> _ = open(path, "w").write("\n \n")
        >>> no_trace_reason(path, [], "t.jsonl")
        't.jsonl holds only blank lines'
        >>> no_trace_reason(path, [SkippedLine(path, 1, "not JSON")], "t.jsonl")
        't.jsonl holds no readable trace: 1 line(s) could not be read and were skipped: line 1: not JSON'

    """  # noqa: E501
    name = os.fspath(path) if shown is None else shown
    if lines:
        unit = lines[0].unit
        return (
            f"{name} holds no readable trace: {len(lines)} {unit}(s) could not be read and were "
            f"skipped{_first(lines)}"
        )
    if os.stat(path).st_size == 0:
        return f"{name} is empty"
    return f"{name} holds only blank lines"


def warn_skipped(lines: Sequence[SkippedLine]) -> None:
    """One warning for the ``lines`` one read of a file skipped (none: no warning).

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     warn_skipped([SkippedLine("t.jsonl", n, "not JSON") for n in (1, 2, 3)])
        >>> [str(w.message) for w in caught]
        ['3 line(s) of t.jsonl could not be read and were skipped; the first: line 1: not JSON']

    """
    if lines:
        warnings.warn(skipped_summary(lines[0].path, lines), stacklevel=2)


def _first(lines: Sequence[SkippedLine]) -> str:
    """``: line 3: why`` for one skipped line, ``; the first: line 3: why`` for more."""
    first = lines[0]
    lead = ": " if len(lines) == 1 else "; the first: "
    return f"{lead}{first.unit} {first.line}: {first.reason}"
