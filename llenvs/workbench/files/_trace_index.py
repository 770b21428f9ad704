r"""A lazy index of a trace file: one summary row per line, and one trace loaded on demand.

The file is read by the library's reader (``TraceReader``: its line limit, its JSON rules, its
schema-version check): building the index takes each line's JSON once (``TraceReader.records``)
for its summary (environment, task, model, success, final reward, lowest PRM score, segment
count, a preview) and its byte offset, and keeps only those: a trace is read again, from its
offset, when it is opened (``TraceReader.read_at``). A line the reader skips (not JSON, torn,
longer than the line limit of ``llenvs.traces.files``), that is not a trace object, or
whose summarised numbers the schema refuses (a task index beyond 64 bits, a reward beyond a
float's range: the reader's reason, as ``llenvs analyze`` gives it) is listed in ``skipped``,
and said in one warning; a line whose trace fails the schema otherwise is reported when it is
opened; a line written by a newer llenvs (an unknown ``schema_version``) stops the index with
the reader's ``TraceFormatError``.

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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from llenvs.traces import SkippedLine, Trace, TraceFormatError, TraceReader, warn_skipped
from llenvs.traces.files import limited_lines, max_line_bytes
from llenvs.traces.records import check_integer, check_number, model_name_in, prompt_hash_of
from llenvs.workbench._whitespace import one_line

__all__ = ["COLUMNS", "SUMMARY_COLUMNS", "TraceIndex", "lines_containing", "load_line"]

SUMMARY_COLUMNS = (
    "line",
    "environment",
    "task",
    "model",
    "success",
    "reward",
    "prm_min",
    "segments",
)
"""The columns that summarise a trace, in the order the trace list shows them."""

COLUMNS = (*SUMMARY_COLUMNS, "preview", "offset", "trace_id", "prompt_hash")
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
        limit = max_line_bytes() if max_line is None else max_line
        reader = TraceReader(path, max_line=limit, report=_said_below)
        rows: list[tuple[Any, ...]] = []
        not_traces: list[SkippedLine] = []
        for number, offset, data in reader.records():
            try:
                rows.append(_summary(data, number, offset))
            except TraceFormatError as error:
                not_traces.append(SkippedLine(reader.path, number, str(error)))
            except (KeyError, TypeError, AttributeError, ValueError) as error:
                not_traces.append(SkippedLine(reader.path, number, f"not a trace: {error!r}"))
        skipped = sorted([*reader.skipped, *not_traces], key=lambda s: s.line)
        warn_skipped(skipped)  # once, for the reader's lines and the index's together
        table = pd.DataFrame.from_records(rows, columns=list(COLUMNS))
        return cls(reader.path, table, tuple(skipped))

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
        llenvs.traces.TraceFormatError: ...bad.jsonl, line 1: trace.task: missing

    """
    limit = max_line_bytes() if max_line is None else max_line
    return TraceReader(path, max_line=limit).read_at(offset, line)


def _said_below(lines: Sequence[SkippedLine]) -> None:
    """The reader's report while indexing: nothing, as ``scan`` warns once for every skip."""


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
        for number, _, raw, _ in limited_lines(handle, limit):
            if raw is not None and needle in raw.lower():
                found.add(number)
    return frozenset(found)


def _summary(data: dict[str, Any], line: int, offset: int) -> tuple[Any, ...]:
    """The index row of a line's JSON; its numbers checked as the schema reader checks them.

    A number the reader refuses (an integer beyond 64 bits, a number beyond a float's range)
    is a ``TraceFormatError`` naming the field, so the line is skipped here with the reason
    ``llenvs analyze`` gives, and never reaches the trace list.
    """
    task = data["task"]
    segments = data["segments"]
    final = data.get("final_rewards") or {}
    rewards = [check_number(v, f"trace.final_rewards.{k}") for k, v in final.items()]
    prm = [
        check_number(v, f"trace.segments[{n}].prm_scores.{k}")
        for n, s in enumerate(segments)
        for k, v in (s.get("prm_scores") or {}).items()
    ]
    success = data.get("success")
    reward = sum(rewards) if rewards else math.nan  # two rewards of 1e308 add up to inf
    return (
        line,
        str(task["environment"]),
        check_integer(task["task_index"], "trace.task.task_index"),
        model_name_in(data.get("run")) or "",
        None if success is None else bool(success),
        reward if math.isfinite(reward) else math.nan,
        min(prm) if prm else math.nan,
        len(segments),
        one_line(str(data["response"]), 120),
        offset,
        str(data.get("trace_id", "")),
        str(task.get("prompt_hash") or prompt_hash_of(str(task["prompt"]))),  # older: computed
    )
