r"""Importing an outside file as traces, by format name; bad rows skipped and reported.

Example:
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "chat.jsonl")
    >>> _ = open(path, "w").write(
    ...     '{"messages": [{"role": "user", "content": "q"},'
    ...     ' {"role": "assistant", "content": "One. Two."}]}\nnot json\n')
    >>> imported = TraceImport("openai_chat", path)
    >>> [len(t.segments) for t in imported], [s.line for s in imported.skipped]
    ([2], [2])

"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

from llenvs.core.errors import LlenvsError, UnknownName
from llenvs.traces.importers.openai_chat import openai_chat_traces
from llenvs.traces.importers.reasoning_gym_log import reasoning_gym_traces
from llenvs.traces.importers.rows import read_rows
from llenvs.traces.importers.step_file import step_file_traces
from llenvs.traces.skipped_line import SkippedLine
from llenvs.traces.trace import Trace

__all__ = ["IMPORT_FORMATS", "TraceImport"]

RowConverter = Callable[[object, str, int], list[Trace]]
"""Turns one row (its JSON value, a segmenter spec, its line) into traces."""

IMPORT_FORMATS: dict[str, RowConverter] = {
    "reasoning_gym": reasoning_gym_traces,
    "processbench": step_file_traces,
    "prm800k": step_file_traces,
    "openai_chat": openai_chat_traces,
}
"""The formats ``llenvs import`` and the app read, by name."""


class TraceImport:
    """The traces of an outside file in a named format, read lazily; ``skipped`` lists bad rows.

    ``segmenter`` (a spec, default ``"steps"``) cuts responses that come without steps; step
    files keep their own steps. A row that cannot be read is skipped, named by file, line and
    reason, and the rest loads: a line that breaks the JSON rules of ``read_rows`` (not UTF-8,
    NUL bytes, NaN or Infinity, a duplicate key, nested too deep, ...) or a row of the wrong
    shape (a missing field, a wrong type). Nothing in a row's content makes iteration raise;
    only the file itself can (a missing file: ``FileNotFoundError``).

    Example:
        >>> TraceImport("csv", "x.csv")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.core.errors.UnknownName: unknown import format 'csv': choose one of: openai_chat, ...

    """

    def __init__(
        self, format: str, path: str | os.PathLike[str], *, segmenter: str = "steps"
    ) -> None:
        if format not in IMPORT_FORMATS:
            raise UnknownName("import format", format, IMPORT_FORMATS)
        self.format = format
        self.path = os.fspath(path)
        self.segmenter = segmenter
        self.skipped: list[SkippedLine] = []
        """The rows skipped so far, in order."""

    def __iter__(self) -> Iterator[Trace]:
        convert = IMPORT_FORMATS[self.format]
        for row in read_rows(self.path):
            if row.error is not None:
                self.skipped.append(SkippedLine(self.path, row.line, row.error))
                continue
            try:
                traces = convert(row.data, self.segmenter, row.line)
            except RecursionError:
                reason = f"not {self._a_row}: nested too deeply"
                self.skipped.append(SkippedLine(self.path, row.line, reason))
                continue
            except (
                LlenvsError, ValueError, LookupError, TypeError, AttributeError, ArithmeticError
            ) as error:  # fmt: skip
                self.skipped.append(SkippedLine(self.path, row.line, f"not {self._a_row}: {error}"))
                continue
            yield from traces

    @property
    def _a_row(self) -> str:
        """``a reasoning_gym row``, ``an openai_chat row``: how messages name a row."""
        article = "an" if self.format[0] in "aeiou" else "a"
        return f"{article} {self.format} row"
