r"""Exporting traces as a PRM800K-style step file: one row per trace, steps and their labels.

The rows have the shape of ``shared/external/step_traces.jsonl`` (``{"dataset", "id",
"problem", "steps", "labels", "first_error_step", "ground_truth_answer",
"final_answer_correct"}``) plus ``prm_scores``, which ``llenvs import prm800k`` reads back.
Human labels and model scores stay apart:

* ``labels`` are human labels only: a step's ``human_label`` reward (1 right, 0 neutral, -1
  wrong), null where it has none and after the first wrong step, as in PRM800K.
  ``first_error_step`` is that first wrong step, -1 when humans labelled steps and found none
  wrong, null when no step has a human label.
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
    >>> from llenvs.traces.importers.step_file import step_file_traces
    >>> row = {"dataset": "prm800k", "id": "p-1", "problem": "q", "steps": ["a", "b"],
    ...        "labels": [1, -1], "final_answer_correct": False}
    >>> back = step_file_row(step_file_traces(row)[0])
    >>> back["steps"], back["labels"], back["first_error_step"]
    (['a', 'b'], [1, -1], 1)

"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any

from llenvs.traces.importers.exported_trace import EXPORT_KEY, exported_fields, step_and_joiner
from llenvs.traces.importers.step_file import HUMAN_LABEL
from llenvs.traces.trace import Trace
from llenvs.traces.trace_writer import write_lines_atomically

__all__ = ["step_file_row", "write_step_file"]


def step_file_row(trace: Trace) -> dict[str, Any]:
    """The step-file row of one trace.

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="1 + 1 = 3. Ok.",
        ...           segments=(SegmentRecord(0, 0, 11, "1 + 1 = 3. ", prm_scores={"p": 0.0}),
        ...                     SegmentRecord(1, 11, 14, "Ok.", prm_scores={"p": 0.5})))
        >>> row = step_file_row(t)
        >>> row["steps"], row["labels"], row["first_error_step"], row["prm_scores"]
        (['1 + 1 = 3.', 'Ok.'], [None, None], None, [{'p': 0.0}, {'p': 0.5}])

    """
    joiner = trace.metadata.get("step_joiner")
    steps = [step_and_joiner(segment.text, joiner)[0] for segment in trace.segments]
    labels: list[int | None] = []
    wrong: int | None = None
    for segment in trace.segments:
        human = segment.rewards.get(HUMAN_LABEL)
        label = None if wrong is not None or human is None else int(human)
        if label == -1:
            wrong = segment.index
        labels.append(label)
    labelled = any(label is not None for label in labels)
    dataset = trace.metadata.get("imported_from")
    return {
        "dataset": dataset if isinstance(dataset, str) else trace.task.environment,
        "id": trace.metadata.get("id") or trace.trace_id,
        "generator": trace.run.model_name,
        "problem": trace.task.prompt,
        "steps": steps,
        "labels": labels,
        "first_error_step": wrong if wrong is not None else -1 if labelled else None,
        "prm_scores": [dict(segment.prm_scores) for segment in trace.segments],
        "ground_truth_answer": trace.task.expected_answer,
        "final_answer_correct": trace.success,
        EXPORT_KEY: exported_fields(trace),
    }


def write_step_file(path: str | os.PathLike[str], traces: Iterable[Trace]) -> int:
    """Write the step-file rows of ``traces`` to ``path`` (JSONL) atomically; the number written.

    Example:
        >>> import tempfile, os
        >>> write_step_file(os.path.join(tempfile.mkdtemp(), "steps.jsonl"), [])
        0

    """
    rows = (json.dumps(step_file_row(t), ensure_ascii=False) + "\n" for t in traces)
    return write_lines_atomically(path, (row.encode("utf-8") for row in rows))
