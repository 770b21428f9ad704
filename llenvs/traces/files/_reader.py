"""Streaming reads of trace files: one trace per line, malformed lines skipped and reported.

Example:
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "empty.jsonl")
    >>> open(path, "w").close()
    >>> list(read_traces(path))
    []

"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import closing
from typing import Any

from llenvs.core import BOM, JsonLineError, parse_json_line
from llenvs.traces.files._line_limit import limited_lines, too_long
from llenvs.traces.files._skip_report import warn_skipped
from llenvs.traces.files._skipped_line import SkippedLine
from llenvs.traces.records import SUPPORTED_SCHEMA_VERSIONS, Trace, TraceFormatError

__all__ = ["TraceReader", "read_traces"]


class TraceReader:
    r"""Iterates the traces of a JSONL file lazily, line by line; ``skipped`` lists bad lines.

    A torn last line (no newline, not JSON: an interrupted append) is skipped, and so is a
    malformed line elsewhere, and the rest loads: a line that breaks the JSON rules of
    ``llenvs.core`` (not UTF-8, NUL bytes, NaN or Infinity, a duplicate key, nesting
    too deep, ...) or the schema (a wrong field type, a missing or unknown field, an integer
    beyond 64 bits or a number beyond a float's range, a non-integer ``schema_version``), and, when
    ``max_line`` is given (the workbench gives ``max_line_bytes()``), a line longer than
    ``max_line`` bytes, passed over unread (``llenvs.traces.files``). A line with an
    unknown integer ``schema_version`` is refused: a ``TraceFormatError`` naming file, line,
    the version and the supported ones (a newer llenvs wrote it; skipping would lose it). A
    byte-order mark at the start of the file is dropped; CRLF line ends are fine; blank lines
    are ignored.

    Each pass over the file (an iteration, ``numbered``, ``records``) hands the lines it skipped
    to ``report`` once, when it ends or is closed: by default one warning with their count and
    the first one's number and reason (``llenvs.traces.files``), however many there are.

    ``records`` reads only as far as an index needs (each line's JSON and where it starts);
    ``read_at`` reads one trace back from its offset.

    Example:
        >>> import tempfile, os, warnings
        >>> path = os.path.join(tempfile.mkdtemp(), "bad.jsonl")
        >>> _ = open(path, "w").write("not json\n")
        >>> reader = TraceReader(path)
        >>> with warnings.catch_warnings(record=True):
        ...     traces = list(reader)
        >>> traces, [(s.line, s.torn) for s in reader.skipped]
        ([], [(1, False)])

    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        max_line: int | None = None,
        report: Callable[[Sequence[SkippedLine]], None] = warn_skipped,
    ) -> None:
        self.path = os.fspath(path)
        self.max_line = max_line
        """The longest line read, in bytes; None: no limit."""
        self.report = report
        """Told the lines each pass skipped, once per pass that skipped any."""
        self.skipped: list[SkippedLine] = []
        """The lines skipped so far by iteration, in order."""

    def __iter__(self) -> Iterator[Trace]:
        return (trace for _, trace in self.numbered())

    def numbered(self) -> Generator[tuple[int, Trace], None, None]:
        """``(line number, trace)`` for each readable line; numbers start at 1, as Browse shows.

        Example:
            >>> import tempfile, os
            >>> from llenvs.traces.files._writer import write_traces
            >>> path = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
            >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
            >>> _ = write_traces(path, [t, t])
            >>> [number for number, _ in TraceReader(path).numbered()]
            [1, 2]

        """
        with closing(self.records()) as records:  # closed with this pass: it reports
            for number, _, data in records:
                try:
                    trace = _trace(data)
                except TraceFormatError as error:
                    self._skip(SkippedLine(self.path, number, str(error)))
                    continue
                yield number, trace

    def records(self) -> Generator[tuple[int, int, Any], None, None]:
        r"""``(line number, byte offset, JSON value)`` of each line that is JSON in a known version.

        The lines skipped here (not JSON, torn, too long, a malformed ``schema_version``) go to
        ``skipped``; a newer ``schema_version`` is refused as in iteration. The value is not
        checked against the schema: ``numbered`` and ``read_at`` do that.

        Example:
            >>> import tempfile, os
            >>> path = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
            >>> _ = open(path, "w").write('{"a": 1}\n\n{"schema_version": 99}\n')
            >>> next(TraceReader(path).records())
            (1, 0, {'a': 1})
            >>> list(TraceReader(path).records())  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            llenvs.traces.TraceFormatError: ...runs.jsonl, line 3: unknown trace schema_version 99: ...

        """  # noqa: E501
        first = len(self.skipped)
        try:
            yield from self._records()
        finally:
            if len(self.skipped) > first:
                self.report(self.skipped[first:])

    def _records(self) -> Iterator[tuple[int, int, Any]]:
        """``records`` without the report at the end of the pass."""
        with open(self.path, "rb") as handle:
            for number, offset, raw, size in limited_lines(handle, self.max_line):
                if raw is None:
                    limit = self.max_line or size  # raw is None only under a limit
                    self._skip(SkippedLine(self.path, number, too_long(size, limit)))
                    continue
                torn = not raw.endswith(b"\n")
                if not raw.removeprefix(BOM if number == 1 else b"").strip():
                    continue
                try:
                    data = parse_json_line(raw, first=number == 1)
                except JsonLineError as error:
                    reason = f"torn last line (an interrupted write): {error}" if torn else error
                    self._skip(SkippedLine(self.path, number, str(reason), torn=torn))
                    continue
                wrong = self._check_version(data, number)
                if wrong is not None:
                    self._skip(SkippedLine(self.path, number, wrong))
                    continue
                yield number, offset, data

    def read_at(self, offset: int, line: int) -> Trace:
        r"""The trace whose line starts at byte ``offset`` (``line``: its number, for messages).

        Whatever would skip the line in iteration is a ``TraceFormatError`` naming file and line.

        Example:
            >>> import tempfile, os
            >>> path = os.path.join(tempfile.mkdtemp(), "bad.jsonl")
            >>> _ = open(path, "w").write('{"schema_version": 1}\n')
            >>> TraceReader(path).read_at(0, 1)  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            llenvs.traces.TraceFormatError: ...bad.jsonl, line 1: trace.task: missing

        """
        with open(self.path, "rb") as handle:
            handle.seek(offset)
            _, _, raw, size = next(limited_lines(handle, self.max_line), (line, offset, b"", 0))
        where = f"{self.path}, line {line}"
        if raw is None:
            raise TraceFormatError(f"{where}: {too_long(size, self.max_line or size)}")
        try:
            data = parse_json_line(raw, first=offset == 0)
        except JsonLineError as error:
            raise TraceFormatError(f"{where}: {error}") from None
        wrong = self._check_version(data, line)
        try:
            if wrong is not None:
                raise TraceFormatError(wrong)
            return _trace(data)
        except TraceFormatError as error:
            raise TraceFormatError(f"{where}: {error}") from None

    def _skip(self, line: SkippedLine) -> None:
        self.skipped.append(line)

    def _check_version(self, data: object, number: int) -> str | None:
        """Why the line's ``schema_version`` is malformed (to skip it), or None.

        An unknown integer version raises ``TraceFormatError``: a newer llenvs wrote the file.
        """
        if not isinstance(data, dict) or "schema_version" not in data:
            return None  # from_dict names what is wrong
        version = data["schema_version"]
        if isinstance(version, bool) or not isinstance(version, int):
            shown = repr(version) if len(repr(version)) <= 40 else repr(version)[:37] + "..."
            return f"trace.schema_version: expected an integer, got {shown}"
        if version in SUPPORTED_SCHEMA_VERSIONS:
            return None
        supported = ", ".join(str(v) for v in SUPPORTED_SCHEMA_VERSIONS)
        raise TraceFormatError(
            f"{self.path}, line {number}: unknown trace schema_version {version!r}: this llenvs "
            f"reads versions {supported} (a newer llenvs wrote it? upgrade llenvs)"
        )


def _trace(data: Any) -> Trace:
    """The trace of a line's JSON value; every reason it is not one a ``TraceFormatError``."""
    try:
        return Trace.from_dict(data)
    except RecursionError:
        raise TraceFormatError("nested too deeply (more levels than Python can check)") from None
    except OverflowError as error:  # RecordReader's checks say which field; this is a backstop
        raise TraceFormatError(f"a number out of range: {error}") from None


def read_traces(path: str | os.PathLike[str]) -> Iterator[Trace]:
    """The traces of a JSONL file, read lazily; see ``TraceReader`` for bad lines.

    Use ``TraceReader`` directly to get the list of skipped lines afterwards.

    Example:
        >>> import tempfile, os
        >>> from llenvs.traces.files._writer import write_traces
        >>> path = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> write_traces(path, [t])
        1
        >>> next(read_traces(path)) == t
        True

    """
    return iter(TraceReader(path))
