r"""A lazy index of a trace file: one summary row per line, and one trace loaded on demand.

Building the index parses each line's JSON once for its summary (environment, task, model,
success, final reward, lowest PRM score, segment count, a preview) and its byte offset, and keeps
only those: a trace is read again, from its offset, when it is opened. A line that is not JSON or
not a trace object is listed in ``skipped``; a line whose trace fails the schema is reported when
it is opened. A line longer than the line limit (64 MB, ``$LLENVS_MAX_LINE_MB`` sets another) is
skipped unread: at most the limit is held in memory, the rest is passed over in chunks.

Example:
    >>> import tempfile, os
    >>> from llenvs.traces import TaskRecord, Trace, SegmentRecord, write_traces
    >>> path = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="Hi.",
    ...           segments=(SegmentRecord(0, 0, 3, "Hi.", prm_scores={"p": 0.25}),))
    >>> _ = write_traces(path, [t]); open(path, "a").write("oops\n")
    5
    >>> index = TraceIndex.scan(path)
    >>> index.table[["line", "environment", "prm_min"]].values.tolist(), index.skipped[0].line
    ([[1, 'e', 0.25]], 2)
    >>> index.load(1) == t
    True

"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

import pandas as pd

from llenvs.traces import SkippedLine, Trace, TraceFormatError
from llenvs.traces.json_line import JsonLineError, parse_json_line
from llenvs.traces.task_identity import prompt_hash_of
from llenvs.ui.whitespace import one_line

__all__ = [
    "COLUMNS",
    "DEFAULT_MAX_LINE_MB",
    "MAX_LINE_ENV",
    "TraceIndex",
    "lines_containing",
    "load_line",
    "max_line_bytes",
]

MAX_LINE_ENV = "LLENVS_MAX_LINE_MB"
"""The environment variable that sets the longest line read, in MB (2**20 bytes)."""

DEFAULT_MAX_LINE_MB = 64
"""The longest line read, in MB, when the environment variable is not set."""

MB = 2**20
"""Bytes in a megabyte, as Streamlit counts them for uploads."""

CHUNK = MB
"""How much of an over-long line is read at a time while passing over it."""

COLUMNS = (
    "line",
    "environment",
    "task",
    "model",
    "success",
    "reward",
    "prm_min",
    "segments",
    "preview",
    "offset",
    "trace_id",
    "prompt_hash",
)
"""The columns of an index table (``environment`` and ``prompt_hash``: the task's identity)."""


@dataclass(frozen=True)
class TraceIndex:
    """The summaries of a trace file's lines, with where each line starts.

    Example:
        >>> TraceIndex("x.jsonl", pd.DataFrame(columns=list(COLUMNS)), ()).count
        0

    """

    path: str
    """The trace file."""
    table: pd.DataFrame
    """One row per readable line, in file order (the columns of ``COLUMNS``)."""
    skipped: tuple[SkippedLine, ...]
    """Lines that are not trace objects (not JSON, torn, or missing fields)."""

    @property
    def count(self) -> int:
        """Number of traces in the index.

        Example:
            >>> TraceIndex("x", pd.DataFrame({"line": [1, 2]}), ()).count
            2

        """
        return len(self.table)

    @classmethod
    def scan(cls, path: str | os.PathLike[str], *, max_line: int | None = None) -> TraceIndex:
        r"""Index ``path`` (one pass, one JSON parse per line, no trace kept).

        A line longer than ``max_line`` bytes (default: ``max_line_bytes()``) is skipped
        without being read whole, and listed in ``skipped`` with its size.

        Example:
            >>> import tempfile
            >>> path = os.path.join(tempfile.mkdtemp(), "big.jsonl")
            >>> _ = open(path, "w").write('{"long": "' + "x" * 300 + '"}\n')
            >>> print(TraceIndex.scan(path, max_line=100).skipped[0])  # doctest: +ELLIPSIS
            /.../big.jsonl, line 1: 313 bytes, longer than the line limit of 100 bytes (...)...
            >>> TraceIndex.scan("/no/such.jsonl")
            Traceback (most recent call last):
            ...
            FileNotFoundError: [Errno 2] No such file or directory: '/no/such.jsonl'

        """
        name = os.fspath(path)
        limit = max_line_bytes() if max_line is None else max_line
        rows: list[tuple[Any, ...]] = []
        skipped: list[SkippedLine] = []
        with open(name, "rb") as handle:
            for number, start, raw, size in _lines(handle, limit):
                if raw is None:
                    skipped.append(SkippedLine(name, number, _too_long(size, limit)))
                    continue
                if not raw.strip():
                    continue
                torn = not raw.endswith(b"\n")
                try:
                    data = parse_json_line(raw, first=number == 1)
                    rows.append(_summary(data, number, start))
                except JsonLineError as error:
                    reason = "torn last line (an interrupted write)" if torn else "not JSON"
                    skipped.append(SkippedLine(name, number, f"{reason}: {error}", torn=torn))
                except (KeyError, TypeError, AttributeError, ValueError) as error:
                    skipped.append(SkippedLine(name, number, f"not a trace: {error!r}"))
        table = pd.DataFrame.from_records(rows, columns=list(COLUMNS))
        return cls(name, table, tuple(skipped))

    def offset_of(self, line: int) -> int:
        """Byte offset of ``line``; a ``KeyError`` naming the file when it has no trace there.

        Example:
            >>> TraceIndex("x", pd.DataFrame({"line": [3], "offset": [40]}), ()).offset_of(3)
            40

        """
        found = self.table.loc[self.table["line"] == line, "offset"]
        if found.empty:
            raise KeyError(f"{self.path} has no trace on line {line}")
        return int(found.iloc[0])

    def load(self, line: int) -> Trace:
        """The trace on ``line``, read from its offset and checked against the schema.

        Example:
            >>> TraceIndex("x", pd.DataFrame({"line": [], "offset": []}), ()).load(1)
            Traceback (most recent call last):
            ...
            KeyError: 'x has no trace on line 1'

        """
        return load_line(self.path, self.offset_of(line), line)


def load_line(path: str, offset: int, line: int, *, max_line: int | None = None) -> Trace:
    r"""The trace whose line starts at byte ``offset`` of ``path`` (``line``: for messages).

    A line longer than ``max_line`` bytes (default: ``max_line_bytes()``) is refused unread.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "bad.jsonl")
        >>> _ = open(path, "w").write('{"schema_version": 1}\n')
        >>> load_line(path, 0, 1)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.traces.errors.TraceFormatError: ...bad.jsonl, line 1: trace.messages: missing

    """
    limit = max_line_bytes() if max_line is None else max_line
    with open(path, "rb") as handle:
        handle.seek(offset)
        _, _, raw, size = next(_lines(handle, limit), (line, offset, b"", 0))
    if raw is None:
        raise TraceFormatError(f"{path}, line {line}: {_too_long(size, limit)}")
    try:
        return Trace.from_dict(parse_json_line(raw, first=offset == 0))
    except (JsonLineError, TraceFormatError) as error:
        raise TraceFormatError(f"{path}, line {line}: {error}") from None


def lines_containing(
    path: str | os.PathLike[str], text: str, *, max_line: int | None = None
) -> frozenset[int]:
    r"""Lines of ``path`` whose JSON contains ``text`` (case-insensitive), without parsing.

    The search runs on the raw line with ``text`` written as JSON writes it, so quotes and
    newlines in ``text`` match the escaped forms; it can also match a field name or the prompt.
    Lines longer than ``max_line`` bytes (default: ``max_line_bytes()``) are passed over.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "t.jsonl")
        >>> _ = open(path, "w").write('{"response": "Ab\\ncd"}\n{"response": "x"}\n')
        >>> sorted(lines_containing(path, "ab\ncd")), sorted(lines_containing(path, "X"))
        ([1], [2])

    """
    needle = json.dumps(text.lower(), ensure_ascii=False)[1:-1].encode("utf-8")
    limit = max_line_bytes() if max_line is None else max_line
    found = set()
    with open(path, "rb") as handle:
        for number, _, raw, _ in _lines(handle, limit):
            if raw is not None and needle in raw.lower():
                found.add(number)
    return frozenset(found)


def max_line_bytes() -> int:
    """The longest line read, in bytes: ``$LLENVS_MAX_LINE_MB`` megabytes, else 64 MB.

    Example:
        >>> max_line_bytes() == 64 * 2**20
        True
        >>> os.environ[MAX_LINE_ENV] = "0.5"; max_line_bytes()
        524288
        >>> os.environ[MAX_LINE_ENV] = "lots"; max_line_bytes()
        Traceback (most recent call last):
        ...
        ValueError: LLENVS_MAX_LINE_MB must be a number of megabytes > 0, got 'lots'
        >>> del os.environ[MAX_LINE_ENV]

    """
    text = os.environ.get(MAX_LINE_ENV) or str(DEFAULT_MAX_LINE_MB)
    try:
        megabytes = float(text)
    except ValueError:
        megabytes = math.nan
    if not megabytes > 0 or math.isinf(megabytes):
        raise ValueError(f"{MAX_LINE_ENV} must be a number of megabytes > 0, got {text!r}")
    return max(int(megabytes * MB), 1)


def _lines(handle: IO[bytes], limit: int) -> Iterator[tuple[int, int, bytes | None, int]]:
    """``(number, offset, raw line or None when longer than limit, size)`` for each line.

    At most ``limit + 1`` bytes of a line are held; the rest of a longer one is read in chunks
    and dropped, up to its newline.
    """
    number, offset = 0, handle.tell()
    while raw := handle.readline(limit + 1):
        number += 1
        size = len(raw)
        if size <= limit:
            yield number, offset, raw, size
        else:
            while not raw.endswith(b"\n") and (raw := handle.readline(CHUNK)):
                size += len(raw)
            yield number, offset, None, size
        offset += size


def _too_long(size: int, limit: int) -> str:
    return (
        f"{size:,} bytes, longer than the line limit of {_amount(limit)} "
        f"({MAX_LINE_ENV} sets it, in MB); not read"
    )


def _amount(size: int) -> str:
    """``size`` bytes said in MB when it is a whole number of them, else in bytes."""
    return f"{size // MB} MB" if size % MB == 0 else f"{size:,} bytes"


def _summary(data: dict[str, Any], line: int, offset: int) -> tuple[Any, ...]:
    task = data["task"]
    segments = data["segments"]
    final = data.get("final_rewards") or {}
    prm = [float(v) for s in segments for v in (s.get("prm_scores") or {}).values()]
    success = data.get("success")
    return (
        line,
        str(task["environment"]),
        int(task["task_index"]),
        (data.get("run") or {}).get("model") or "",
        None if success is None else bool(success),
        float(sum(final.values())) if final else math.nan,
        min(prm) if prm else math.nan,
        len(segments),
        one_line(str(data["response"]), 120),
        offset,
        str(data.get("trace_id", "")),
        str(task.get("prompt_hash") or prompt_hash_of(str(task["prompt"]))),  # older: computed
    )
