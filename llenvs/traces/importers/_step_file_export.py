r"""Exporting traces as a PRM800K-style step file: one row per trace, steps and their labels.

The rows have the shape of ``shared/external/step_traces.jsonl`` (``{"dataset", "id",
"problem", "steps", "labels", "first_error_step", "ground_truth_answer",
"final_answer_correct"}``) plus ``labeller`` and ``prm_scores``, which ``llenvs import
prm800k`` reads back. Human labels and model scores stay apart:

* ``labels`` are one labeller's labels from the label store (1 right, 0 neutral, -1 wrong),
  as given: null where the step has none (traces carry no labels; ``label_export`` passes the
  store's). ``first_error_step`` is the first wrong step, -1 when the labeller labelled steps
  and found none wrong, null when no step has a label (``first_error``); ``labeller`` names
  who labelled (null with no labels), and an import puts the labels back under that name.
* ``prm_scores`` are a model's: one ``{name: score}`` object per step, its ``prm_scores`` as
  the trace holds them. A model score never becomes a label; importing the file gives each back
  under its name.
* ``steps`` are the segments without their trailing whitespace (PRM800K's steps are lines);
  ``final_answer_correct`` is the trace's verdict.
* ``llenvs`` holds the rest that a step file can hold (``exported_trace``): the trace id, the
  task record (its identity included) and run record, the text after each step, the other step
  rewards, the final rewards, the error and the metadata, so ``llenvs import prm800k`` gives the
  trace back, its response byte for byte. ``dropped_fields`` names what it cannot hold.

Example:
    >>> from llenvs.traces.importers._step_file import step_file_traces
    >>> row = {"dataset": "prm800k", "id": "p-1", "problem": "q", "steps": ["a", "b"],
    ...        "labels": [1, -1], "final_answer_correct": False}
    >>> back = step_file_row(step_file_traces(row)[0], {0: 1, 1: -1}, "prm800k")
    >>> back["steps"], back["labels"], back["first_error_step"], back["labeller"]
    (['a', 'b'], [1, -1], 1, 'prm800k')

"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

from llenvs.traces.files import write_lines_atomically
from llenvs.traces.importers._exported_trace import EXPORT_KEY, exported_fields, step_and_joiner
from llenvs.traces.labels import first_error
from llenvs.traces.records import Trace

__all__ = ["step_file_row", "step_texts", "write_rows", "write_step_file"]


def step_texts(trace: Trace) -> list[str]:
    r"""A trace's steps as a step file holds them: each segment without the text after it.

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A.\n\nB.",
        ...           segments=(SegmentRecord(0, 0, 4, "A.\n\n"), SegmentRecord(1, 4, 6, "B.")))
        >>> step_texts(t)
        ['A.', 'B.']

    """
    joiner = trace.metadata.get("step_joiner")
    return [step_and_joiner(segment.text, joiner)[0] for segment in trace.segments]


def step_file_row(
    trace: Trace, labels: Mapping[int, int] | None = None, labeller: str | None = None
) -> dict[str, Any]:
    """The step-file row of one trace, with ``labeller``'s ``labels`` (segment -> label).

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="1 + 1 = 3. Ok.",
        ...           segments=(SegmentRecord(0, 0, 11, "1 + 1 = 3. ", prm_scores={"p": 0.0}),
        ...                     SegmentRecord(1, 11, 14, "Ok.", prm_scores={"p": 0.5})))
        >>> row = step_file_row(t)
        >>> row["steps"], row["labels"], row["first_error_step"], row["prm_scores"]
        (['1 + 1 = 3.', 'Ok.'], [None, None], None, [{'p': 0.0}, {'p': 0.5}])
        >>> step_file_row(t, {1: 0, 0: -1}, "ada")["labels"]
        [-1, 0]

    """
    given = dict(labels or {})
    outside = sorted(set(given) - {segment.index for segment in trace.segments})
    if outside:
        raise ValueError(
            f"labels of segments {outside} of trace {trace.trace_id}, which has "
            f"{len(trace.segments)} segments"
        )
    dataset = trace.metadata.get("imported_from")
    return {
        "dataset": dataset if isinstance(dataset, str) else trace.task.environment,
        "id": trace.metadata.get("id") or trace.trace_id,
        "generator": trace.run.model_name,
        "problem": trace.task.prompt,
        "steps": step_texts(trace),
        "labels": [given.get(segment.index) for segment in trace.segments],
        "first_error_step": first_error(given),
        "labeller": labeller if given else None,
        "prm_scores": [dict(segment.prm_scores) for segment in trace.segments],
        "ground_truth_answer": trace.task.expected_answer,
        "final_answer_correct": trace.success,
        EXPORT_KEY: exported_fields(trace),
    }


def write_step_file(path: str | os.PathLike[str], traces: Iterable[Trace]) -> int:
    """Write the step-file rows of ``traces`` (no labels) to ``path`` atomically; their number.

    Example:
        >>> import tempfile, os
        >>> write_step_file(os.path.join(tempfile.mkdtemp(), "steps.jsonl"), [])
        0

    """
    return write_rows(path, (step_file_row(t) for t in traces))


def write_rows(path: str | os.PathLike[str], rows: Iterable[Mapping[str, Any]]) -> int:
    r"""Write ``rows`` to ``path`` as JSON Lines, atomically; the number written.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "rows.jsonl")
        >>> write_rows(path, [{"a": 1}]), open(path).read()
        (1, '{"a": 1}\n')

    """
    lines = (json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    return write_lines_atomically(path, (line.encode("utf-8") for line in lines))
