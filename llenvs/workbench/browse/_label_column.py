"""The labels the segment table's ``label`` column shows for a trace, from the label store.

A trace file's labels live beside it (``X.labels.jsonl``, ``llenvs.traces.labels``). The
column shows one labeller's latest label of each step: the labeller named (Browse's label mode
names the one labelling now, from Settings), else the first (in the store's order) who labelled
a step of the trace. A trace of a file imported before the store, whose steps
still hold ``human_label`` rewards (``llenvs labels migrate`` moves them), shows those when the
store has none for it.

Example:
    >>> import tempfile, os
    >>> from llenvs.traces import SegmentRecord, StepLabel, TaskRecord, Trace, append_labels
    >>> path = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A. B.",
    ...           segments=(SegmentRecord(0, 0, 3, "A. "), SegmentRecord(1, 3, 5, "B.")))
    >>> shown_labels(path, t)
    {}
    >>> _ = append_labels(path, [StepLabel(t.trace_id, 1, -1, "ada")])
    >>> shown_labels(path, t)
    {1: -1}

"""

from __future__ import annotations

import os

from llenvs.traces import Labels, Trace, read_labels
from llenvs.traces.importers import legacy_labels

__all__ = ["labels_shown", "shown_labels"]


def shown_labels(
    trace_file: str | os.PathLike[str], trace: Trace, labeller: str | None = None
) -> dict[int, int]:
    """``segment -> label`` for ``trace`` of ``trace_file``, as the label column shows them.

    ``labeller``: show this labeller's labels (none when they have not labelled the trace),
    not the first labeller's.

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> old = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A.",
        ...             segments=(SegmentRecord(0, 0, 2, "A.", rewards={"human_label": 1.0}),))
        >>> shown_labels("/nonexistent/runs.jsonl", old)
        {0: 1}
        >>> shown_labels("/nonexistent/runs.jsonl", old, labeller="ada")
        {}

    """
    return labels_shown(read_labels(trace_file), trace, labeller)


def labels_shown(labels: Labels, trace: Trace, labeller: str | None = None) -> dict[int, int]:
    """``shown_labels`` of a label store already read (``labels``).

    Example:
        >>> from llenvs.traces import SegmentRecord, StepLabel, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A.",
        ...           segments=(SegmentRecord(0, 0, 2, "A."),))
        >>> store = Labels((StepLabel(t.trace_id, 0, 1, "bo"), StepLabel(t.trace_id, 0, -1, "ada")))
        >>> labels_shown(store, t), labels_shown(store, t, "ada"), labels_shown(store, t, "cy")
        ({0: 1}, {0: -1}, {})

    """
    named = labels.labellers() if labeller is None else (labeller,)
    for name in named:
        steps = labels.latest(name).get(trace.trace_id)
        if steps or labeller is not None:
            return {
                segment: label.label
                for segment, label in (steps or {}).items()
                if label.label is not None
            }
    return {label.segment: label.label for label in legacy_labels(trace) if label.label is not None}
