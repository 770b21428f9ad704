"""Importing reasoning-gym evaluation logs: one trace per completion.

Two shapes are read. The eval script's own result file (one JSON document per dataset:
``{"dataset_name" or "name", "model", "system_prompt", "results": [{"question",
"answer" or "expected_answer", "completions": [{"full_model_response" or "response",
"model_answer", "score"}]}]}``), and flat rows with one completion each (``{"source", "model",
"system_prompt", "prompt", "response", "expected_answer", "model_answer_as_logged",
"score_as_logged"}``, the shape of ``shared/external/real_responses.jsonl``). The response is
cut by a segmenter spec (default ``"steps"``); the logged score becomes the ``correctness``
final reward.

Example:
    >>> row = {"source": "x/arithmetic/leg_counting.json results[3].completions[0]",
    ...        "model": "m", "prompt": "How many legs?", "response": "Two dogs. So 8.",
    ...        "expected_answer": "8", "score_as_logged": 1.0}
    >>> [t] = reasoning_gym_traces(row)
    >>> t.task.environment, t.task.task_index, t.success, [s.text for s in t.segments]
    ('leg_counting', 3, True, ['Two dogs. ', 'So 8.'])

"""

from __future__ import annotations

import re
from typing import Any

from llenvs.core import Message
from llenvs.core.run_spec import RunSpec
from llenvs.traces.importers._pieces import pieces_of, segments_of
from llenvs.traces.importers._rows import list_at, object_at
from llenvs.traces.records import RunRecord, TaskRecord, Trace, TraceFormatError

__all__ = ["reasoning_gym_traces"]

_EVAL_FILE = re.compile(
    r"/(?P<env>[\w.-]+)\.json results\[(?P<task>\d+)\]\.completions\[(?P<c>\d+)\]"
)
_MATH_EVAL = re.compile(r"/(?P<env>[\w.-]+)/[^/\s]+\.jsonl line (?P<line>\d+)")


def reasoning_gym_traces(row: object, segmenter: str = "steps", number: int = 1) -> list[Trace]:
    """The traces of one row of a reasoning-gym log (``number``: its position in the file).

    A result file gives one trace per completion of every result; a flat row one trace.

    Example:
        >>> doc = {"dataset_name": "leg_counting", "model": "m", "results": [
        ...     {"question": "q", "answer": "4", "completions": [
        ...         {"full_model_response": "4.", "score": 1.0},
        ...         {"full_model_response": "5.", "score": 0.0}]}]}
        >>> [(t.task.task_index, t.success) for t in reasoning_gym_traces(doc)]
        [(0, True), (0, False)]

    """
    if not isinstance(row, dict):
        raise TraceFormatError(f"expected a JSON object, got {type(row).__name__}")
    if "results" in row:
        return _result_file(row, segmenter)
    if "response" not in row:
        raise TraceFormatError("neither 'results' (a result file) nor 'response' (a flat row)")
    source = str(row.get("source") or "")
    environment, task_index = _where(source, number)
    return [
        _trace(
            environment=environment,
            task_index=task_index,
            prompt=_text(row, "prompt"),
            system_prompt=row.get("system_prompt"),
            response=_text(row, "response"),
            expected=row.get("expected_answer"),
            model=row.get("model"),
            score=row.get("score_as_logged"),
            segmenter=segmenter,
            metadata={
                "imported_from": "reasoning_gym",
                "source": source,
                "model_answer": row.get("model_answer_as_logged"),
            },
        )
    ]


def _result_file(document: dict[str, Any], segmenter: str) -> list[Trace]:
    name = document.get("dataset_name") or document.get("name") or "unknown"
    if not isinstance(name, str):
        raise TraceFormatError(f"'dataset_name' must be a string, got {name!r:.40}")
    traces = []
    for task_index, result in enumerate(list_at(document["results"], "results")):
        where = f"results[{task_index}]"
        result = object_at(result, where)
        completions = list_at(result.get("completions") or [], f"{where}.completions")
        for number, completion in enumerate(completions):
            completion = object_at(completion, f"{where}.completions[{number}]")
            response = completion.get("full_model_response", completion.get("response"))
            if not isinstance(response, str):
                raise TraceFormatError(f"{where}.completions[{number}]: no response")
            traces.append(
                _trace(
                    environment=name,
                    task_index=task_index,
                    prompt=_text(result, "question"),
                    system_prompt=document.get("system_prompt"),
                    response=response,
                    expected=result.get("answer", result.get("expected_answer")),
                    model=document.get("model"),
                    score=completion.get("score"),
                    segmenter=segmenter,
                    metadata={
                        "imported_from": "reasoning_gym",
                        "source": f"{where}.completions[{number}]",
                        "model_answer": completion.get("model_answer"),
                    },
                )
            )
    return traces


def _trace(
    *,
    environment: str,
    task_index: int,
    prompt: str,
    system_prompt: object,
    response: str,
    expected: object,
    model: object,
    score: object,
    segmenter: str,
    metadata: dict[str, Any],
) -> Trace:
    system = system_prompt if isinstance(system_prompt, str) else None
    final = {} if score is None else {"correctness": _number(score)}
    messages = [Message("user", prompt), Message("assistant", response)]
    if system:
        messages.insert(0, Message("system", system))
    return Trace(
        task=TaskRecord(
            environment=environment,
            adapter="reasoning_gym",
            adapter_kwargs={},
            task_index=task_index,
            prompt=prompt,
            system_prompt=system,
            expected_answer=None if expected is None else str(expected),
        ),
        run=RunRecord.made_with(
            RunSpec(),
            model_name=model if isinstance(model, str) else None,
            segmenter=segmenter,
            system_prompt=system,
        ),
        messages=tuple(messages),
        response=response,
        segments=segments_of(pieces_of(response, segmenter)),
        final_rewards=final,
        success=None if not final else final["correctness"] >= 1.0,
        metadata=metadata,
    )


def _where(source: str, number: int) -> tuple[str, int]:
    """Environment and task index named by a flat row's ``source``, else the row's position."""
    if found := _EVAL_FILE.search(source):
        return found["env"], int(found["task"])
    if found := _MATH_EVAL.search(source):
        return found["env"], int(found["line"]) - 1
    return "unknown", number - 1


def _text(row: dict[str, Any], key: str) -> str:
    value = row.get(key)
    if not isinstance(value, str):
        raise TraceFormatError(f"{key!r} must be a string, got {value!r}")
    return value


def _number(value: object) -> float:
    if isinstance(value, bool | int | float):
        return float(value)
    raise TraceFormatError(f"a score must be a number, got {value!r}")
