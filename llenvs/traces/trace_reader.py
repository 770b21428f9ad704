"""Streaming reads of trace files: one trace per line, malformed lines skipped and reported.

Example:
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "empty.jsonl")
    >>> open(path, "w").close()
    >>> list(read_traces(path))
    []

"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterator

from llenvs.traces.errors import TraceFormatError
from llenvs.traces.skipped_line import SkippedLine
from llenvs.traces.trace import SUPPORTED_SCHEMA_VERSIONS, Trace

__all__ = ["TraceReader", "read_traces"]


class TraceReader:
    r"""Iterates the traces of a JSONL file lazily, line by line; ``skipped`` lists bad lines.

    A torn last line (no newline, not JSON: an interrupted append) is skipped with a warning. A
    malformed line elsewhere is skipped with a warning naming file and line, and the rest loads.
    A line with an unknown ``schema_version`` is refused: a ``TraceFormatError`` naming file,
    line, the version and the supported ones. Blank lines are ignored.

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

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self.skipped: list[SkippedLine] = []
        """The lines skipped so far by iteration, in order."""

    def __iter__(self) -> Iterator[Trace]:
        return (trace for _, trace in self.numbered())

    def numbered(self) -> Iterator[tuple[int, Trace]]:
        """``(line number, trace)`` for each readable line; numbers start at 1, as Browse shows.

        Example:
            >>> import tempfile, os
            >>> from llenvs.traces.trace_writer import write_traces
            >>> from llenvs.traces.task_record import TaskRecord
            >>> path = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
            >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
            >>> _ = write_traces(path, [t, t])
            >>> [number for number, _ in TraceReader(path).numbered()]
            [1, 2]

        """
        with open(self.path, "rb") as handle:
            for number, raw in enumerate(handle, start=1):
                torn = not raw.endswith(b"\n")
                if not raw.strip():
                    continue
                try:
                    data = json.loads(raw.decode("utf-8"))
                except (UnicodeDecodeError, json.JSONDecodeError) as error:
                    reason = "torn last line (an interrupted write)" if torn else "not JSON"
                    self._skip(SkippedLine(self.path, number, f"{reason}: {error}", torn=torn))
                    continue
                self._refuse_unknown_version(data, number)
                try:
                    trace = Trace.from_dict(data)
                except TraceFormatError as error:
                    self._skip(SkippedLine(self.path, number, str(error)))
                    continue
                yield number, trace

    def _skip(self, line: SkippedLine) -> None:
        self.skipped.append(line)
        warnings.warn(f"skipped {line}", stacklevel=3)

    def _refuse_unknown_version(self, data: object, number: int) -> None:
        if not isinstance(data, dict) or "schema_version" not in data:
            return
        version = data["schema_version"]
        if version in SUPPORTED_SCHEMA_VERSIONS and not isinstance(version, bool):
            return
        supported = ", ".join(str(v) for v in SUPPORTED_SCHEMA_VERSIONS)
        raise TraceFormatError(
            f"{self.path}, line {number}: unknown trace schema_version {version!r}: this llenvs "
            f"reads version {supported} (a newer llenvs wrote it? upgrade llenvs)"
        )


def read_traces(path: str | os.PathLike[str]) -> Iterator[Trace]:
    """The traces of a JSONL file, read lazily; see ``TraceReader`` for bad lines.

    Use ``TraceReader`` directly to get the list of skipped lines afterwards.

    Example:
        >>> import tempfile, os
        >>> from llenvs.traces.trace_writer import write_traces
        >>> from llenvs.traces.task_record import TaskRecord
        >>> path = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> write_traces(path, [t])
        1
        >>> next(read_traces(path)) == t
        True

    """
    return iter(TraceReader(path))
