r"""Importing human-labelled step files: ProcessBench and PRM800K, one trace per solution.

Three shapes are read: the rows of ``shared/external/step_traces.jsonl`` (``{"dataset", "id",
"problem", "steps", "labels", "first_error_step", "ground_truth_answer",
"final_answer_correct", ...}``), ProcessBench's own rows (``{"id", "problem", "steps", "label",
"final_answer_correct"}``, ``label`` the earliest wrong step or -1) and PRM800K's own records
(``{"question": {"problem", ...}, "label": {"steps": [{"completions": [{"text", "rating"}],
"chosen_completion"}]}}``). Each step is one segment: ProcessBench steps are paragraphs (joined
by a blank line), PRM800K steps are lines, and the joiner stays with the step before it. A step's
human label (1 right, 0 neutral, -1 wrong) is its ``human_label`` reward. A row may also carry
``prm_scores``, one ``{name: score}`` object (or null) per step: a model's scores, as ``llenvs
export prm800k`` writes them; they come back as that step's ``rewards[name]`` and
``prm_scores[name]``, never as a human label.

Example:
    >>> row = {"dataset": "processbench/gsm8k", "id": "gsm8k-7", "problem": "2 + 2?",
    ...        "steps": ["2 + 2 = 5.", "So 5."], "labels": [-1, None],
    ...        "final_answer_correct": False}
    >>> [t] = step_file_traces(row)
    >>> [s.text for s in t.segments], [s.rewards for s in t.segments], t.task.task_index
    (['2 + 2 = 5.\n\n', 'So 5.'], [{'human_label': -1.0}, {}], 7)

"""

from __future__ import annotations

import re
from typing import Any

from llenvs.core.backend import Message
from llenvs.traces.errors import TraceFormatError
from llenvs.traces.importers.pieces import segments_of
from llenvs.traces.importers.rows import list_at, object_at
from llenvs.traces.run_record import RunRecord
from llenvs.traces.task_record import TaskRecord
from llenvs.traces.trace import Trace

__all__ = ["HUMAN_LABEL", "step_file_traces"]

HUMAN_LABEL = "human_label"
"""The step reward that holds a step's human label (1 right, 0 neutral, -1 wrong)."""


def step_file_traces(row: object, segmenter: str = "steps", number: int = 1) -> list[Trace]:
    r"""The trace of one row of a step file (``segmenter`` is unused: the file has its steps).

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
    if not isinstance(row, dict):
        raise TraceFormatError(f"expected a JSON object, got {type(row).__name__}")
    if isinstance(row.get("label"), dict):
        row = _from_prm800k(row)
    dataset = str(row.get("dataset") or ("prm800k" if "labeler" in row else "processbench"))
    steps = row.get("steps")
    if not isinstance(steps, list) or not all(isinstance(s, str) for s in steps):
        raise TraceFormatError("'steps' must be a list of strings")
    labels = _labels(row, len(steps))
    scores = _prm_scores(row, len(steps))
    joiner = "\n" if dataset == "prm800k" else "\n\n"
    pieces = [step + joiner for step in steps[:-1]] + steps[-1:]
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
    return [
        Trace(
            task=TaskRecord(
                environment=environment or adapter,
                adapter=adapter,
                adapter_kwargs={},
                task_index=_task_index(identifier, number),
                prompt=problem,
                expected_answer=None if expected is None else str(expected),
            ),
            run=RunRecord(model=generator if isinstance(generator, str) else None),
            messages=(Message("user", problem), Message("assistant", response)),
            response=response,
            segments=segments_of(
                pieces,
                [{} if label is None else {HUMAN_LABEL: float(label)} for label in labels],
                scores,
            ),
            final_rewards=final,
            success=None if not final else bool(correct),
            metadata={
                "imported_from": dataset,
                "id": identifier,
                "source": row.get("source"),
                "step_joiner": joiner,
                "first_error_step": row.get("first_error_step"),
                "final_answer": row.get("final_answer"),
            },
        )
    ]


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
