r"""A trace file with its label store, as the Labels page reads it: traces, lines and labels.

The traces come with the line each is on (Browse opens a trace by its line), and the labels
with the lines of the labels file that could not be read (``read_labels``: a line that is not
JSON, not a label, or names a trace the file does not hold is skipped, named, and the rest
loads). ``cached_labelled_file`` reads a file once per version of it and of its labels file.

Example:
    >>> import tempfile, os, warnings
    >>> from llenvs.traces import SegmentRecord, StepLabel, TaskRecord, Trace
    >>> from llenvs.traces import append_labels, labels_path, write_traces
    >>> path = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A.",
    ...           segments=(SegmentRecord(0, 0, 2, "A."),))
    >>> _ = write_traces(path, [t]); _ = append_labels(path, [StepLabel(t.trace_id, 0, -1, "ada")])
    >>> _ = open(labels_path(path), "a").write("oops\n")
    >>> found = LabelledFile.read(path)
    >>> found.lines == {t.trace_id: 1}, found.labels.labellers(), found.labels.skipped[0].line
    (True, ('ada',), 2)

"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass

import streamlit as st

from llenvs.traces import Trace, TraceReader, labels_path, read_labels
from llenvs.traces.files import SkippedLine
from llenvs.traces.labels import Labels
from llenvs.ui.cached import stamp

__all__ = ["LabelledFile", "cached_labelled_file"]


@dataclass(frozen=True)
class LabelledFile:
    """A trace file's traces (each with its line) and its labels."""

    path: str
    """The trace file."""
    traces: tuple[Trace, ...]
    """Its readable traces, in file order."""
    lines: dict[str, int]
    """Trace id -> the line it is on (from 1, as Browse numbers them)."""
    skipped: tuple[SkippedLine, ...]
    """The trace file's lines that could not be read."""
    labels: Labels
    """Its label store (``X.labels.jsonl``), the unreadable lines in ``labels.skipped``."""

    @classmethod
    def read(cls, path: str) -> LabelledFile:
        """Read ``path`` and its labels; the warnings of bad lines are kept, not raised.

        Example:
            >>> LabelledFile.read("/no/such.jsonl")  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            FileNotFoundError: ...

        """
        reader = TraceReader(path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the page shows what was skipped
            numbered = list(reader.numbered())
            traces = tuple(trace for _, trace in numbered)
            labels = read_labels(path, {t.trace_id for t in traces})
        return cls(
            path=path,
            traces=traces,
            lines={trace.trace_id: line for line, trace in numbered},
            skipped=tuple(reader.skipped),
            labels=labels,
        )


@st.cache_data(max_entries=4, show_spinner="Reading the traces and their labels…")
def _read(path: str, version: tuple[int, int], labels_version: tuple[int, int]) -> LabelledFile:
    del version, labels_version
    return LabelledFile.read(path)


def cached_labelled_file(path: str | os.PathLike[str]) -> LabelledFile:
    """``LabelledFile.read(path)``, read again when the file or its labels file changes.

    Example:
        >>> cached_labelled_file("/no/such.jsonl")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        FileNotFoundError: ...

    """
    path = str(path)
    return _read(path, stamp(path), stamp(str(labels_path(path))))
