r"""Exporting one labeller's step labels with their traces: PRM800K, ProcessBench or a HF dataset.

The labels come from the trace file's label store (``llenvs.traces.labels``: the latest
label of the labeller on each step), never from the traces. A trace the labeller labelled no
step of is skipped and counted, never written as all-correct; so, in ProcessBench's format,
is a trace whose labels do not settle its first error (``settled_first_error``). Every row
carries the trace's id, so importing the output gives the same trace ids and the same labels
under the same labeller:

* ``prm800k``: ``step_file_row`` rows (JSONL): every step's label (-1, 0, 1, null), the model
  scores apart, and the ``llenvs`` object that gives the trace back as it was.
* ``processbench``: ProcessBench rows (JSONL: ``id``, ``generator``, ``problem``, ``steps``,
  ``final_answer_correct``, ``label``, the first wrong step or -1) with ``trace_id``,
  ``dataset``, ``labeller`` and the answer fields. The format holds the first error only, so
  an import gives +1 to every step before it and no label after it.
* ``hf``: a ``datasets`` dataset saved with ``save_to_disk`` (``hf_dataset.HF_COLUMNS``).

Example:
    >>> import tempfile, pathlib
    >>> from llenvs.traces import SegmentRecord, StepLabel, TaskRecord, Trace, write_traces
    >>> from llenvs.traces.labels._store import append_labels
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> steps = (SegmentRecord(0, 0, 4, "A.\n\n"), SegmentRecord(1, 4, 6, "B."))
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A.\n\nB.", segments=steps)
    >>> u = Trace(task=TaskRecord("e", "a", {}, 1, "q2"), response="A.\n\nB.", segments=steps)
    >>> _ = write_traces(folder / "t.jsonl", [t, u])
    >>> _ = append_labels(folder / "t.jsonl", [StepLabel(t.trace_id, 0, 1, "ada"),
    ...                                        StepLabel(t.trace_id, 1, -1, "ada")])
    >>> done = export_labels(folder / "t.jsonl", folder / "pb.jsonl", ExportFormat.PROCESSBENCH,
    ...                      "ada")
    >>> done.written, done.unlabelled
    (1, 1)
    >>> import json; json.loads((folder / "pb.jsonl").read_text())["label"]
    1

"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from llenvs.traces.files import TraceReader
from llenvs.traces.importers._exported_trace import dropped_fields
from llenvs.traces.importers._hf_dataset import write_hf_dataset
from llenvs.traces.importers._step_file_export import step_file_row, step_texts, write_rows
from llenvs.traces.labels import first_error, read_labels, settled_first_error
from llenvs.traces.records import Trace

__all__ = ["ExportFormat", "LabelExport", "export_labels", "hf_row", "processbench_row"]


class ExportFormat(Enum):
    """The formats ``llenvs export`` writes, by the name it takes.

    Example:
        >>> ExportFormat("hf").needs_labels, ExportFormat("prm800k").needs_labels
        (True, False)

    """

    PRM800K = "prm800k"
    """PRM800K-style step file (JSONL): per-step labels, model scores, the trace kept whole."""
    PROCESSBENCH = "processbench"
    """ProcessBench rows (JSONL): the first wrong step, -1 when there is none."""
    HF = "hf"
    """A Hugging Face ``datasets`` dataset saved to a folder, steps and labels as columns."""

    @property
    def needs_labels(self) -> bool:
        """Whether an export in this format needs a labeller (only PRM800K's has other uses).

        Example:
            >>> ExportFormat.PROCESSBENCH.needs_labels
            True

        """
        return self is not ExportFormat.PRM800K


@dataclass(frozen=True)
class LabelExport:
    """What an export wrote, and what it left out.

    Example:
        >>> LabelExport(3, unlabelled=2).skipped
        2

    """

    written: int
    """Traces written."""
    unlabelled: int = 0
    """Traces skipped because the labeller labelled none of their steps."""
    unsettled: int = 0
    """Traces skipped (ProcessBench) because their labels do not settle the first error."""
    outside: int = 0
    """Labels left out because they name a segment their trace does not have."""
    dropped: Mapping[str, int] = field(default_factory=dict)
    """What the format cannot hold of a trace (PRM800K: ``dropped_fields``), by how many
    traces lost it."""

    @property
    def skipped(self) -> int:
        """Traces read but not written.

        Example:
            >>> LabelExport(0, 1, 1).skipped
            2

        """
        return self.unlabelled + self.unsettled


def export_labels(
    trace_file: str | os.PathLike[str],
    output: str | os.PathLike[str],
    format: ExportFormat,
    labeller: str | None,
    *,
    overwrite: bool = False,
) -> LabelExport:
    """Write the traces of ``trace_file`` with ``labeller``'s labels to ``output`` in ``format``.

    ``labeller`` None (PRM800K only) writes every trace without labels: its steps and model
    scores. Written atomically; an existing ``output`` is refused unless ``overwrite``; a
    labeller with no label in the store is refused naming those there; when no trace is
    written, it is an error and nothing is. Unreadable trace lines are skipped with a warning.

    Example:
        >>> import tempfile, pathlib
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> export_labels(folder / "t.jsonl", folder / "o.jsonl", ExportFormat.HF, None)
        Traceback (most recent call last):
        ...
        ValueError: --format hf needs --labels LABELLER: whose labels to export

    """
    if format.needs_labels and labeller is None:
        raise ValueError(f"--format {format.value} needs --labels LABELLER: whose labels to export")
    target = Path(output)
    if (target.exists() or target.is_symlink()) and not overwrite:
        raise ValueError(f"{target} exists: give --overwrite to replace it")
    by_trace: dict[str, dict[int, Any]] = {}
    if labeller is not None:
        labels = read_labels(trace_file)
        if labeller not in labels.labellers():
            present = ", ".join(labels.labellers()) or "none"
            raise ValueError(
                f"no labels by {labeller!r} in {Path(trace_file).name}'s label store "
                f"(labellers there: {present})"
            )
        by_trace = labels.latest(labeller)
    counts: Counter[str] = Counter()
    dropped: Counter[str] = Counter()
    traces = _counted(TraceReader(trace_file), counts)
    rows = _rows(traces, by_trace, format, labeller, counts, dropped)
    written = _write(target, format, _at_least_one(rows, counts, trace_file, labeller))
    return LabelExport(
        written, counts["unlabelled"], counts["unsettled"], counts["outside"], dict(dropped)
    )


def processbench_row(
    trace: Trace, labels: Mapping[int, int], labeller: str
) -> dict[str, Any] | None:
    """The ProcessBench row of ``trace`` with ``labels``; None when they do not settle it.

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A. B.",
        ...           segments=(SegmentRecord(0, 0, 3, "A. "), SegmentRecord(1, 3, 5, "B.")))
        >>> processbench_row(t, {0: 1, 1: 1}, "ada")["label"], processbench_row(t, {1: 1}, "ada")
        (-1, None)

    """
    found = settled_first_error(labels, len(trace.segments))
    if found is None:
        return None
    return {
        "id": _row_id(trace),
        "generator": trace.run.model_name,
        "problem": trace.task.prompt,
        "steps": step_texts(trace),
        "final_answer_correct": trace.success,
        "label": found,
        "trace_id": trace.trace_id,
        "dataset": _dataset(trace),
        "labeller": labeller,
        **_answers(trace),
    }


def hf_row(trace: Trace, labels: Mapping[int, int], labeller: str) -> dict[str, Any]:
    """The dataset row of ``trace`` with ``labels`` (the columns of ``hf_dataset``).

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A. B.",
        ...           segments=(SegmentRecord(0, 0, 3, "A. "), SegmentRecord(1, 3, 5, "B.")))
        >>> row = hf_row(t, {1: -1}, "ada")
        >>> row["steps"], row["labels"], row["first_error_step"]
        (['A.', 'B.'], [None, -1], 1)

    """
    return {
        "trace_id": trace.trace_id,
        "dataset": _dataset(trace),
        "id": _row_id(trace),
        "generator": trace.run.model_name,
        "problem": trace.task.prompt,
        "steps": step_texts(trace),
        "labels": [labels.get(segment.index) for segment in trace.segments],
        "first_error_step": first_error(labels),
        "labeller": labeller,
        "final_answer_correct": trace.success,
        **_answers(trace),
    }


def _rows(
    traces: Iterable[Trace],
    by_trace: Mapping[str, Mapping[int, Any]],
    format: ExportFormat,
    labeller: str | None,
    counts: Counter[str],
    dropped: Counter[str],
) -> Iterator[dict[str, Any]]:
    """The rows of the traces in ``format``, counting what is left out and what is dropped."""
    for trace in traces:
        found = by_trace.get(trace.trace_id, {})
        values = {s: label.label for s, label in found.items() if s < len(trace.segments)}
        counts["outside"] += len(found) - len(values)
        if labeller is not None and not values:
            counts["unlabelled"] += 1
            continue
        if format is ExportFormat.PRM800K:
            dropped.update(dropped_fields(trace))
            yield step_file_row(trace, values, labeller)
            continue
        assert labeller is not None  # needs_labels
        if format is ExportFormat.HF:
            yield hf_row(trace, values, labeller)
            continue
        row = processbench_row(trace, values, labeller)
        if row is None:
            counts["unsettled"] += 1
            continue
        yield row


def _write(target: Path, format: ExportFormat, rows: Iterable[dict[str, Any]]) -> int:
    """Write ``rows`` to ``target`` atomically: a dataset folder, or JSON Lines."""
    if format is ExportFormat.HF:
        return write_hf_dataset(target, rows)
    return write_rows(target, rows)


def _counted(traces: Iterable[Trace], counts: Counter[str]) -> Iterator[Trace]:
    for trace in traces:
        counts["read"] += 1
        yield trace


def _at_least_one(
    rows: Iterable[dict[str, Any]],
    counts: Counter[str],
    source: str | os.PathLike[str],
    labeller: str | None,
) -> Iterator[dict[str, Any]]:
    """``rows``; when there were none, an error saying why (so nothing is written)."""
    written = 0
    for row in rows:
        written += 1
        yield row
    if written:
        return
    if not counts["read"]:
        raise ValueError(f"no trace could be read from {source}: nothing was written")
    raise ValueError(
        f"no trace of {source} to export: {counts['unlabelled']} with no step labelled by "
        f"{labeller!r}, {counts['unsettled']} whose labels do not settle the first error; "
        "nothing was written"
    )


def _dataset(trace: Trace) -> str:
    dataset = trace.metadata.get("imported_from")
    return dataset if isinstance(dataset, str) else trace.task.environment


def _row_id(trace: Trace) -> str:
    identifier = trace.metadata.get("id")
    return identifier if isinstance(identifier, str) and identifier else trace.trace_id


def _answers(trace: Trace) -> dict[str, str | None]:
    """The expected and the given answer (as strings, or null)."""
    final = trace.metadata.get("final_answer")
    return {
        "ground_truth_answer": trace.task.expected_answer,
        "final_answer": None if final is None else str(final),
    }
