"""Moving the human labels that older imports wrote into trace files to the label store.

Before the label store, ``llenvs import processbench|prm800k`` kept each step's human label as
its ``human_label`` step reward (and the first wrong step in ``metadata.first_error_step``).
Such files still load; ``migrate_labels`` (``llenvs labels migrate FILE``) moves their labels to
``FILE.labels.jsonl`` under the labeller of the trace's dataset (``processbench``,
``prm800k``) and rewrites the file without them, so that sharing it shares no labels.

Example:
    >>> import tempfile, os
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace, read_labels, write_traces
    >>> path = os.path.join(tempfile.mkdtemp(), "old.jsonl")
    >>> old = Trace(task=TaskRecord("gsm8k", "processbench", {}, 0, "q"), response="A.",
    ...             segments=(SegmentRecord(0, 0, 2, "A.", rewards={"human_label": -1.0}),),
    ...             metadata={"imported_from": "processbench/gsm8k", "first_error_step": 0})
    >>> _ = write_traces(path, [old])
    >>> migrate_labels(path)
    LabelMigration(traces=1, labels=1)
    >>> [(l.labeller, l.label) for l in read_labels(path).history]
    [('processbench', -1)]
    >>> migrate_labels(path)  # nothing left to move
    LabelMigration(traces=0, labels=0)

"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

from llenvs.core import JsonLineError, parse_json_line
from llenvs.traces.files import file_lock, trace_line, write_lines_atomically
from llenvs.traces.importers._row_labels import labeller_of
from llenvs.traces.importers._step_file import HUMAN_LABEL
from llenvs.traces.labels import LABEL_VALUES, StepLabel, append_new_labels
from llenvs.traces.records import Trace, TraceFormatError

__all__ = ["LabelMigration", "legacy_labels", "migrate_labels", "without_labels"]

_MARK = f'"{HUMAN_LABEL}"'.encode()
"""The bytes a line holding a ``human_label`` reward has (lines without them are kept as read)."""


@dataclass(frozen=True)
class LabelMigration:
    """What a migration did.

    Example:
        >>> LabelMigration(traces=2, labels=9).labels
        9

    """

    traces: int
    """Traces that held human labels, rewritten without them."""
    labels: int
    """Labels put in the label store (those it held already are not counted)."""


def legacy_labels(trace: Trace) -> tuple[StepLabel, ...]:
    """The ``human_label`` rewards of ``trace`` as store labels, under its dataset's labeller.

    A reward that is not -1, 0 or 1 is not a label and is left out.

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "prm800k", {}, 0, "q"), response="A.",
        ...           segments=(SegmentRecord(0, 0, 2, "A.", rewards={"human_label": 0.0}),),
        ...           metadata={"imported_from": "prm800k"})
        >>> [(l.segment, l.label, l.labeller) for l in legacy_labels(t)]
        [(0, 0, 'prm800k')]

    """
    labeller = labeller_of(trace.metadata.get("imported_from"))
    found = []
    for segment in trace.segments:
        value = segment.rewards.get(HUMAN_LABEL)
        if value is not None and value in LABEL_VALUES:
            found.append(StepLabel(trace.trace_id, segment.index, int(value), labeller))
    return tuple(found)


def without_labels(trace: Trace) -> Trace:
    """``trace`` without ``human_label`` rewards and without ``metadata.first_error_step``.

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A.",
        ...           segments=(SegmentRecord(0, 0, 2, "A.", rewards={"human_label": 1.0,
        ...                                                           "prm": 0.5}),))
        >>> without_labels(t).segments[0].rewards
        {'prm': 0.5}

    """
    segments = tuple(
        dataclasses.replace(
            segment, rewards={k: v for k, v in segment.rewards.items() if k != HUMAN_LABEL}
        )
        for segment in trace.segments
    )
    metadata = {k: v for k, v in trace.metadata.items() if k != "first_error_step"}
    return dataclasses.replace(trace, segments=segments, metadata=metadata)


def migrate_labels(trace_file: str | os.PathLike[str]) -> LabelMigration:
    """Move the ``human_label`` rewards of ``trace_file``'s traces to its label store.

    Under the file's lock: the labels go to the store first (``append_new_labels``: those it
    holds already are not added again), then the file is rewritten atomically with those traces
    without their labels; every other line, an unreadable one too, is kept byte for byte. A
    failure between the two leaves the labels in both places, and running it again finishes.

    Example:
        >>> import tempfile, os
        >>> empty = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
        >>> open(empty, "w").close()
        >>> migrate_labels(empty)
        LabelMigration(traces=0, labels=0)

    """
    path = os.fspath(trace_file)
    with file_lock(path):
        lines: list[bytes] = []
        found: list[StepLabel] = []
        changed = 0
        with open(path, "rb") as handle:
            for number, raw in enumerate(handle, start=1):
                trace = _labelled_trace(raw, number) if _MARK in raw else None
                if trace is None:
                    lines.append(raw)
                    continue
                found.extend(legacy_labels(trace))
                lines.append(trace_line(without_labels(trace)))
                changed += 1
        if not changed:
            return LabelMigration(0, 0)
        stored = append_new_labels(path, found)
        write_lines_atomically(path, lines)
    return LabelMigration(changed, stored)


def _labelled_trace(raw: bytes, number: int) -> Trace | None:
    """The trace of a line when it reads as one with a ``human_label`` reward; else None."""
    try:
        trace = Trace.from_dict(parse_json_line(raw, first=number == 1))
    except (JsonLineError, TraceFormatError, RecursionError, OverflowError):
        return None
    if any(HUMAN_LABEL in segment.rewards for segment in trace.segments):
        return trace
    return None
