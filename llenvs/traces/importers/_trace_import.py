r"""Importing an outside file as traces, by format name; bad rows skipped and reported.

The human step labels a file holds (ProcessBench, PRM800K, an export of llenvs) are gathered
apart, in ``TraceImport.labels``, for the label store: they never go into a trace.

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

import dataclasses
import hashlib
import json
import os
from collections.abc import Callable, Iterator

from llenvs.core.errors import LlenvsError, UnknownName
from llenvs.traces.files import SkippedLine
from llenvs.traces.importers._exported_trace import EXPORT_KEY, exported_trace_id
from llenvs.traces.importers._hf_dataset import read_hf_rows
from llenvs.traces.importers._openai_chat import openai_chat_traces
from llenvs.traces.importers._reasoning_gym_log import reasoning_gym_traces
from llenvs.traces.importers._row_labels import RowLabels
from llenvs.traces.importers._rows import Row, read_rows
from llenvs.traces.importers._step_file import hf_traces, prm800k_traces, processbench_traces
from llenvs.traces.importers._step_file_labels import hf_labels, prm800k_labels, processbench_labels
from llenvs.traces.labels import StepLabel
from llenvs.traces.records import Trace, WrongFormatError

__all__ = ["IMPORT_FORMATS", "LABELLED_FORMATS", "TraceImport", "stable_trace_id"]

RowConverter = Callable[[object, str, int], list[Trace]]
"""Turns one row (its JSON value, a segmenter spec, its line) into traces."""

RowLabeller = Callable[[object], list[RowLabels]]
"""The human labels of the traces of one row (its JSON value), one ``RowLabels`` per trace."""

IMPORT_FORMATS: dict[str, RowConverter] = {
    "reasoning_gym": reasoning_gym_traces,
    "processbench": processbench_traces,
    "prm800k": prm800k_traces,
    "openai_chat": openai_chat_traces,
    "hf": hf_traces,
}
"""The formats ``llenvs import`` and the app read, by name (``hf``: a folder)."""

LABELLED_FORMATS: dict[str, RowLabeller] = {
    "processbench": processbench_labels,
    "prm800k": prm800k_labels,
    "hf": hf_labels,
}
"""The formats whose rows hold human step labels, and how to read them."""

ROW_SOURCES: dict[str, Callable[[str], Iterator[Row]]] = {"hf": read_hf_rows}
"""Where a format's rows come from when not from a JSON Lines file (``read_rows``)."""


class TraceImport:
    """The traces of an outside file in a named format, read lazily; ``skipped`` lists bad rows.

    ``segmenter`` (a spec, default ``"steps"``) cuts responses that come without steps; step
    files keep their own steps. A row that cannot be read is skipped, named by file, line and
    reason, and the rest loads: a line that breaks the JSON rules of ``read_rows`` (not UTF-8,
    NUL bytes, NaN or Infinity, a duplicate key, nested too deep, ...) or a row of the wrong
    shape (a missing field, a wrong type). A row of another format (a PRM800K record read as
    ``processbench``, say, or an llenvs trace, which needs no import) refuses the whole
    import: iteration raises ``WrongFormatError`` naming file, line and the format to use; so
    does the file itself (missing: ``FileNotFoundError``).

    Each trace gets a stable id, so that importing a file again gives the same ids (and
    ``llenvs import`` skips those already in its output): a row of ``llenvs export`` gives its
    trace's own id back; any other row's traces get the first 32 hex digits of the SHA-256 of
    the format, the row's JSON and the trace's position in the row.

    ``labels`` gathers, as the traces are read, the human step labels of the formats that
    have them (``LABELLED_FORMATS``), under each trace's id: for the label store, never in the
    trace.

    Example:
        >>> TraceImport("csv", "x.csv")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.core.errors.UnknownName: unknown import format 'csv': choose one of: hf, ...

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
        self.labels: list[StepLabel] = []
        """The human step labels of the traces read so far, in order."""

    def __iter__(self) -> Iterator[Trace]:
        convert = IMPORT_FORMATS[self.format]
        label = LABELLED_FORMATS.get(self.format)
        for row in ROW_SOURCES.get(self.format, read_rows)(self.path):
            if row.error is not None:
                self.skipped.append(SkippedLine(self.path, row.line, row.error))
                continue
            try:
                _not_a_trace(row.data)
                traces = convert(row.data, self.segmenter, row.line)
                found = label(row.data) if label is not None else []
            except WrongFormatError as error:
                raise WrongFormatError(f"{self.path}, line {row.line}: {error}") from None
            except RecursionError:
                reason = f"not {self._a_row}: nested too deeply"
                self.skipped.append(SkippedLine(self.path, row.line, reason))
                continue
            except (
                LlenvsError, ValueError, LookupError, TypeError, AttributeError, ArithmeticError
            ) as error:  # fmt: skip
                self.skipped.append(SkippedLine(self.path, row.line, f"not {self._a_row}: {error}"))
                continue
            given = _given_id(row.data, label is not None)
            for position, trace in enumerate(traces):
                trace_id = given or stable_trace_id(self.format, row.data, position)
                trace = dataclasses.replace(trace, trace_id=trace_id)
                if position < len(found):
                    self.labels.extend(found[position].step_labels(trace_id))
                yield trace

    @property
    def _a_row(self) -> str:
        """``a reasoning_gym row``, ``an openai_chat row``: how messages name a row."""
        article = "an" if self.format[0] in "aeiou" else "a"
        return f"{article} {self.format} row"


def stable_trace_id(format: str, row: object, position: int) -> str:
    """The id of the ``position``-th trace of a row of a file in ``format`` (see TraceImport).

    Example:
        >>> a = stable_trace_id("openai_chat", {"messages": []}, 0)
        >>> len(a), a == stable_trace_id("openai_chat", {"messages": []}, 0)
        (32, True)
        >>> a == stable_trace_id("openai_chat", {"messages": []}, 1)
        False

    """
    text = json.dumps([format, row, position], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _given_id(row: object, step_file: bool) -> str | None:
    """The id a row of ``llenvs export`` gives back (a row-level ``trace_id``: step files only)."""
    if isinstance(row, dict) and (step_file or isinstance(row.get(EXPORT_KEY), dict)):
        return exported_trace_id(row)
    return None


def _not_a_trace(row: object) -> None:
    """Refuse a line of an llenvs trace file: it is opened as it is, not imported."""
    if isinstance(row, dict) and "schema_version" in row and "segments" in row:
        raise WrongFormatError(
            "an llenvs trace, not a row to import: the file is a trace file already (open it "
            "as it is)"
        )
