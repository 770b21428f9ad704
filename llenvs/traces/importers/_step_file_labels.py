"""Reading the human step labels of a step file's rows: ProcessBench, PRM800K and ``hf`` rows.

The human labels (1 right, 0 neutral, -1 wrong) never go into the trace that
``llenvs.traces.importers`` reads from a row: ``step_file_labels`` gives them apart,
under their labeller (the row's ``labeller``, else its dataset's name up to a ``/``:
``processbench``, ``prm800k``), and ``llenvs import`` puts them in the output's label store
(``llenvs.traces.labels``). A row is checked as ``step_file_traces`` checks it: a row of
the other format is refused with a ``WrongFormatError`` saying what to do.

Example:
    >>> row = {"dataset": "processbench/gsm8k", "id": "gsm8k-7", "problem": "2 + 2?",
    ...        "steps": ["2 + 2 = 5.", "So 5."], "labels": [-1, None],
    ...        "final_answer_correct": False}
    >>> step_file_labels(row)
    [RowLabels(labeller='processbench', labels=(-1, None))]

"""

from __future__ import annotations

from llenvs.traces.importers._row_labels import RowLabels, labeller_of
from llenvs.traces.importers._step_file import StepFormat, _dataset, _labels, _step_row

__all__ = ["hf_labels", "prm800k_labels", "processbench_labels", "step_file_labels"]


def processbench_labels(row: object) -> list[RowLabels]:
    """The labels of the trace of one ProcessBench row (see ``step_file_labels``).

    Example:
        >>> processbench_labels({"id": "x", "problem": "q", "steps": ["a", "b", "c"],
        ...                      "label": -1})
        [RowLabels(labeller='processbench', labels=(1, 1, 1))]
        >>> processbench_labels({"id": "x-2", "problem": "q", "steps": ["a", "b"],
        ...                      "label": 1})[0].labels
        (1, -1)

    """
    return step_file_labels(row, format=StepFormat.PROCESSBENCH)


def prm800k_labels(row: object) -> list[RowLabels]:
    """The labels of the trace of one PRM800K row (see ``step_file_labels``).

    Example:
        >>> prm800k_labels({"dataset": "prm800k", "problem": "q", "steps": ["a", "b"],
        ...                 "labels": [0, -1]})
        [RowLabels(labeller='prm800k', labels=(0, -1))]

    """
    return step_file_labels(row, format=StepFormat.PRM800K)


def hf_labels(row: object) -> list[RowLabels]:
    """The labels of the trace of one row of an ``llenvs export --format hf`` dataset.

    Example:
        >>> hf_labels({"dataset": "x", "problem": "q", "steps": ["a"], "labels": [None]})
        [RowLabels(labeller='x', labels=(None,))]
        >>> hf_labels({"trace_id": "ab", "dataset": "prm800k", "id": "p-1", "problem": "q",
        ...            "steps": ["a", "b"], "labels": [1, None], "labeller": "ada"})
        [RowLabels(labeller='ada', labels=(1, None))]

    """
    return step_file_labels(row, format=StepFormat.HF)


def step_file_labels(row: object, *, format: StepFormat = StepFormat.PRM800K) -> list[RowLabels]:
    r"""The human labels of the trace ``step_file_traces`` reads from ``row``, one per step.

    The labeller is the row's ``labeller`` (what ``llenvs export`` records), else the row's
    dataset up to a ``/`` (``processbench/gsm8k`` gives ``processbench``; a PRM800K record,
    ``prm800k``). ProcessBench's ``label`` (the earliest wrong step, or -1) labels every step
    before it 1 and it -1, leaving the rest unlabelled; -1 labels every step 1.

    Example:
        >>> step_file_labels({"dataset": "processbench/math", "problem": "q",
        ...                   "steps": ["a", "b"], "label": 0}, format=StepFormat.PROCESSBENCH)
        [RowLabels(labeller='processbench', labels=(-1, None))]
        >>> step = {"completions": [{"text": "2", "rating": 0}], "chosen_completion": 0}
        >>> step_file_labels({"question": {"problem": "1 + 1?"}, "label": {"steps": [step]}})
        [RowLabels(labeller='prm800k', labels=(0,))]

    """
    row = _step_row(row, format)
    labels = _labels(row, len(row["steps"]))
    named = row.get("labeller")
    labeller = named if isinstance(named, str) and named else labeller_of(_dataset(row))
    return [RowLabels(labeller, tuple(labels))]
