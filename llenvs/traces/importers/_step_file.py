r"""Importing human-labelled step files: ProcessBench and PRM800K, one trace per solution.

Three shapes are read: the rows of ``shared/external/step_traces.jsonl`` (``{"dataset", "id",
"problem", "steps", "labels", "first_error_step", "ground_truth_answer",
"final_answer_correct", ...}``), ProcessBench's own rows (``{"id", "problem", "steps", "label",
"final_answer_correct"}``, ``label`` the earliest wrong step or -1) and PRM800K's own records
(``{"question": {"problem", ...}, "label": {"steps": [{"completions": [{"text", "rating"}],
"chosen_completion"}]}}``); ``hf`` reads the rows of a Hugging Face dataset that ``llenvs
export --format hf`` saved (step-file rows with a ``trace_id``). Each step is one segment:
ProcessBench steps are paragraphs (joined by a blank line), PRM800K steps are lines, and the
joiner stays with the step before it.

The human labels (1 right, 0 neutral, -1 wrong) never go into the trace: ``step_file_labels``
(``llenvs.traces.importers``) gives them apart, under their labeller, and
``llenvs import`` puts them in the output's label store (``llenvs.traces.labels``). A row
may also carry ``prm_scores``, one ``{name: score}`` object (or null) per step: a model's
scores, as ``llenvs export`` writes them; they come back as that step's ``rewards[name]`` and
``prm_scores[name]``, never as a human label. A row that ``llenvs export --format prm800k``
wrote also holds an ``"llenvs"`` object (``exported_trace``): the trace comes back as it was
exported, id, task, run, final rewards and the exact text between steps included; a row with a
``trace_id`` (every row llenvs exports) gives that id back.

Each format reads its own rows and the shared step-file rows; a row of the other format (a
PRM800K record or an exported row read as ``processbench``, a ProcessBench row read as
``prm800k``) is refused with a ``WrongFormatError`` saying what to do.

Example:
    >>> row = {"dataset": "processbench/gsm8k", "id": "gsm8k-7", "problem": "2 + 2?",
    ...        "steps": ["2 + 2 = 5.", "So 5."], "labels": [-1, None],
    ...        "final_answer_correct": False}
    >>> [t] = step_file_traces(row)
    >>> [s.text for s in t.segments], [s.rewards for s in t.segments], t.task.task_index
    (['2 + 2 = 5.\n\n', 'So 5.'], [{}, {}], 7)

"""

from __future__ import annotations

import re
from enum import Enum
from typing import Any

from llenvs.core import Message
from llenvs.core.run_spec import RunSpec
from llenvs.traces.importers._exported_trace import EXPORT_KEY, restored
from llenvs.traces.importers._pieces import segments_of
from llenvs.traces.importers._rows import list_at, object_at
from llenvs.traces.records import RunRecord, TaskRecord, Trace, TraceFormatError, WrongFormatError

__all__ = [
    "HUMAN_LABEL",
    "StepFormat",
    "hf_traces",
    "prm800k_traces",
    "processbench_traces",
    "step_file_traces",
]

HUMAN_LABEL = "human_label"
"""The step reward in which imports before the label store kept a step's human label (1 right,
0 neutral, -1 wrong); ``llenvs labels migrate`` moves such labels to the store."""


class StepFormat(Enum):
    """The two step-file formats, by the name ``llenvs import`` gives them.

    Example:
        >>> StepFormat("prm800k").expected  # doctest: +ELLIPSIS
        'a PRM800K record ({"question", "label": {"steps"}}) or a step-file row ...'

    """

    PROCESSBENCH = "processbench"
    """ProcessBench: steps are paragraphs, ``label`` is the earliest wrong step."""
    PRM800K = "prm800k"
    """PRM800K: steps are lines, each rated; also what ``llenvs export prm800k`` writes."""
    HF = "hf"
    """A Hugging Face dataset saved by ``llenvs export --format hf``: step-file rows."""

    @property
    def expected(self) -> str:
        """The rows this format reads, for messages."""
        own = {
            StepFormat.PROCESSBENCH: 'a ProcessBench row ({"id", "problem", "steps", "label"})',
            StepFormat.PRM800K: 'a PRM800K record ({"question", "label": {"steps"}})',
            StepFormat.HF: "a row of llenvs export --format hf",
        }[self]
        return f'{own} or a step-file row ({{"problem", "steps", "labels"}})'


def processbench_traces(row: object, segmenter: str = "steps", number: int = 1) -> list[Trace]:
    r"""The trace of one row of a ProcessBench file (see ``step_file_traces``).

    Example:
        >>> [t] = processbench_traces({"id": "x-2", "problem": "q", "steps": ["a", "b"],
        ...                            "label": 1, "final_answer_correct": False})
        >>> t.response
        'a\n\nb'

    """
    return step_file_traces(row, segmenter, number, format=StepFormat.PROCESSBENCH)


def prm800k_traces(row: object, segmenter: str = "steps", number: int = 1) -> list[Trace]:
    r"""The trace of one row of a PRM800K file, or of ``llenvs export prm800k``'s output.

    Example:
        >>> prm800k_traces({"id": "x", "problem": "q", "steps": ["a"], "label": 0})
        Traceback (most recent call last):
        ...
        llenvs.traces.WrongFormatError: a ProcessBench row ('label': the earliest wrong step), not a prm800k row: import the file as processbench

    """  # noqa: E501
    return step_file_traces(row, segmenter, number, format=StepFormat.PRM800K)


def hf_traces(row: object, segmenter: str = "steps", number: int = 1) -> list[Trace]:
    r"""The trace of one row of a dataset that ``llenvs export --format hf`` saved.

    Example:
        >>> row = {"trace_id": "ab", "dataset": "prm800k", "id": "p-1", "problem": "q",
        ...        "steps": ["a", "b"], "labels": [1, None], "labeller": "ada"}
        >>> [t] = hf_traces(row)
        >>> t.response
        'a\nb'

    """
    return step_file_traces(row, segmenter, number, format=StepFormat.HF)


def step_file_traces(
    row: object,
    segmenter: str = "steps",
    number: int = 1,
    *,
    format: StepFormat = StepFormat.PRM800K,
) -> list[Trace]:
    r"""The trace of one row of a step file (``segmenter`` is unused: the file has its steps).

    The row's labels are checked (a row with a bad label is refused) but not kept:
    ``step_file_labels`` gives them.

    Example:
        >>> record = {"question": {"problem": "1 + 1?", "ground_truth_answer": "2"},
        ...           "label": {"finish_reason": "solution", "steps": [
        ...               {"completions": [{"text": "1 + 1 = 2", "rating": 1}],
        ...                "chosen_completion": 0},
        ...               {"completions": [{"text": "# Answer\n\n2", "rating": 1}],
        ...                "chosen_completion": 0}]}}
        >>> [t] = step_file_traces(record, number=4)
        >>> t.response, t.task.adapter, t.task.task_index
        ('1 + 1 = 2\n# Answer\n\n2', 'prm800k', 3)

    """
    del segmenter
    block = row.get(EXPORT_KEY) if isinstance(row, dict) else None
    row = _step_row(row, format)
    dataset = _dataset(row)
    steps = row["steps"]
    _labels(row, len(steps))
    scores = _prm_scores(row, len(steps))
    joiner = "\n" if dataset == "prm800k" else "\n\n"
    joiners = _joiners(block, len(steps)) if block is not None else None
    if joiners is None:
        pieces = [step + joiner for step in steps[:-1]] + steps[-1:]
    else:
        pieces = [step + after for step, after in zip(steps, joiners, strict=True)]
    problem = row.get("problem")
    if not isinstance(problem, str):
        raise TraceFormatError(f"'problem' must be a string, got {problem!r}")
    correct = row.get("final_answer_correct")
    final = {} if not isinstance(correct, bool) else {"correctness": float(correct)}
    response = "".join(pieces)
    adapter, _, environment = dataset.partition("/")
    identifier = str(row.get("id") or "")
    expected = row.get("ground_truth_answer")
    generator = row.get("generator")
    trace = Trace(
        task=TaskRecord(
            environment=environment or adapter,
            adapter=adapter,
            adapter_kwargs={},
            task_index=_task_index(identifier, number),
            prompt=problem,
            expected_answer=None if expected is None else str(expected),
        ),
        run=RunRecord.made_with(
            RunSpec(), model_name=generator if isinstance(generator, str) else None
        ),
        messages=(Message("user", problem), Message("assistant", response)),
        response=response,
        segments=segments_of(pieces, None, scores),
        final_rewards=final,
        success=None if not final else bool(correct),
        metadata={
            "imported_from": dataset,
            "id": identifier,
            "source": row.get("source"),
            "step_joiner": joiner,
            "final_answer": row.get("final_answer"),
        },
    )
    return [trace if block is None else restored(trace, block, problem)]


def _step_row(row: object, format: StepFormat) -> dict[str, Any]:
    """``row`` checked against ``format``, as a step-file row (a PRM800K record converted)."""
    if not isinstance(row, dict):
        raise TraceFormatError(f"expected a JSON object, got {type(row).__name__}")
    _check_format(row, format)
    if isinstance(row.get("label"), dict):
        row = _from_prm800k(row)
    steps = row.get("steps")
    if not isinstance(steps, list) or not all(isinstance(s, str) for s in steps):
        raise TraceFormatError(f"'steps' must be a list of strings; expected {format.expected}")
    return row


def _dataset(row: dict[str, Any]) -> str:
    """The dataset a step-file row names (a raw PRM800K or ProcessBench row: by its shape)."""
    return str(row.get("dataset") or ("prm800k" if "labeler" in row else "processbench"))


def _check_format(row: dict[str, Any], format: StepFormat) -> None:
    """Refuse a row of the other format with what to do instead."""
    if format is StepFormat.PROCESSBENCH and EXPORT_KEY in row:
        raise WrongFormatError(
            f"a row of llenvs export prm800k (it has an {EXPORT_KEY!r} object), not a "
            "processbench row: import the file as prm800k"
        )
    if format is StepFormat.PROCESSBENCH and isinstance(row.get("label"), dict):
        raise WrongFormatError(
            "a PRM800K record ('question', 'label.steps'), not a processbench row: import the "
            "file as prm800k"
        )
    wrong = row.get("label")
    if (
        format is StepFormat.PRM800K
        and "labels" not in row
        and isinstance(wrong, int)
        and not isinstance(wrong, bool)
    ):
        raise WrongFormatError(
            "a ProcessBench row ('label': the earliest wrong step), not a prm800k row: import "
            "the file as processbench"
        )
    if "steps" not in row and not isinstance(row.get("label"), dict):
        raise TraceFormatError(f"no 'steps': expected {format.expected}")


def _joiners(block: object, count: int) -> list[str]:
    """The text after each step that an exported row records (``llenvs.step_joiners``)."""
    joiners = block.get("step_joiners") if isinstance(block, dict) else None
    if (
        not isinstance(joiners, list)
        or len(joiners) != count
        or not all(isinstance(j, str) for j in joiners)
    ):
        raise TraceFormatError(
            f"{EXPORT_KEY}.step_joiners must be a list of {count} strings (one per step)"
        )
    return joiners


def _labels(row: dict[str, Any], count: int) -> list[int | None]:
    """Per-step labels: given, or from ProcessBench's ``label`` (earliest wrong step, or -1)."""
    labels = row.get("labels")
    if labels is None and row.get("label") is not None:
        wrong = row["label"]
        if isinstance(wrong, bool) or not isinstance(wrong, int):
            raise TraceFormatError(
                f"'label' must be the earliest wrong step (an integer) or -1, got {wrong!r:.40}"
            )
        labels = [1 if wrong < 0 or i < wrong else -1 if i == wrong else None for i in range(count)]
        # Kept although nothing reads it now: a row's stable trace id has always been taken
        # after this, so ids of files imported before stay the same.
        row.setdefault("first_error_step", wrong)
    if labels is None:
        return [None] * count
    if not isinstance(labels, list) or len(labels) != count:
        raise TraceFormatError(f"'labels' must be a list of {count} values (one per step)")
    for label in labels:
        if label is not None and (isinstance(label, bool) or label not in (-1, 0, 1)):
            raise TraceFormatError(f"a label must be 1, 0, -1 or null, got {label!r}")
    return labels


def _prm_scores(row: dict[str, Any], count: int) -> list[dict[str, float]]:
    """Per-step model scores: ``prm_scores``, one ``{name: score}`` object or null per step."""
    given = row.get("prm_scores")
    if given is None:
        return [{} for _ in range(count)]
    if not isinstance(given, list) or len(given) != count:
        raise TraceFormatError(f"'prm_scores' must be a list of {count} objects (one per step)")
    scores: list[dict[str, float]] = []
    for step in given:
        if step is None:
            step = {}
        if not isinstance(step, dict) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in step.values()
        ):
            raise TraceFormatError(f"a step's prm_scores must map names to numbers, got {step!r}")
        scores.append({str(name): float(value) for name, value in step.items()})
    return scores


def _from_prm800k(record: dict[str, Any]) -> dict[str, Any]:
    """A PRM800K record as a step-file row: each step's chosen (else first) completion."""
    question = object_at(record.get("question") or {}, "question")
    steps, labels = [], []
    label = record["label"]
    for number, step in enumerate(list_at(label.get("steps") or [], "label.steps")):
        where = f"label.steps[{number}]"
        step = object_at(step, where)
        completions = list_at(step.get("completions") or [], f"{where}.completions")
        if not completions:
            break
        chosen = step.get("chosen_completion")
        if chosen is None:
            chosen = 0
        if isinstance(chosen, bool) or not isinstance(chosen, int):
            raise TraceFormatError(
                f"{where}.chosen_completion must be an integer or null, got {chosen!r:.40}"
            )
        if not 0 <= chosen < len(completions):
            raise TraceFormatError(
                f"{where}.chosen_completion {chosen} is out of range: the step has "
                f"{len(completions)} completion{'' if len(completions) == 1 else 's'}"
            )
        picked = object_at(completions[chosen], f"{where}.completions[{chosen}]")
        steps.append(picked.get("text"))
        labels.append(picked.get("rating"))
    if not steps:
        raise TraceFormatError("a PRM800K record without steps")
    finish = label.get("finish_reason")
    return {
        "dataset": "prm800k",
        "id": record.get("id") or "",
        "problem": question.get("problem"),
        "steps": steps,
        "labels": labels,
        "ground_truth_answer": question.get("ground_truth_answer"),
        "final_answer_correct": None,
        "finish_reason": finish,
        "generator": record.get("generator"),
    }


def _task_index(identifier: str, number: int) -> int:
    found = re.search(r"(\d+)$", identifier)
    return int(found[1]) if found else number - 1
