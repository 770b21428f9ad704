r"""What ``llenvs export prm800k`` keeps of a trace beyond the step file's own fields.

A PRM800K-style row holds a problem, its steps and their labels. To give a trace back as it
was, an exported row also holds one object, ``"llenvs"``: the trace's id and time, its task
record (identity included) and run record, the text after each step (so the steps join to the
response byte for byte), the step rewards that are neither human labels nor PRM scores, the
final rewards, the verdict, the error and the metadata. What a step file cannot hold is named
by ``dropped_fields`` (token ids and logprobs, where each step came from, extra conversation
turns, the parent of a branch); an import reads the steps back as replayed.

Example:
    >>> from llenvs.traces.records._segment import SegmentRecord
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A.\n\nB.",
    ...           segments=(SegmentRecord(0, 0, 4, "A.\n\n"), SegmentRecord(1, 4, 6, "B.")),
    ...           final_rewards={"correctness": 0.2})
    >>> block = exported_fields(t)
    >>> block["step_joiners"], block["final_rewards"], block["task"]["task_index"]
    (['\n\n', ''], {'correctness': 0.2}, 0)

"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from llenvs.core import (
    RECORD,
    Coded,
    Flag,
    Message,
    Number,
    Text,
    read_record,
    record_dict,
)
from llenvs.traces.records import (
    RunRecord,
    SegmentFlag,
    TaskRecord,
    Trace,
    TraceFormatError,
    legacy_run_record,
)

__all__ = [
    "EXPORT_KEY",
    "ExportedFields",
    "dropped_fields",
    "exported_fields",
    "exported_trace_id",
    "restored",
    "step_and_joiner",
]

EXPORT_KEY = "llenvs"
"""The key of a step-file row that holds what ``exported_fields`` keeps."""

HUMAN_LABEL = "human_label"
"""The step reward that holds a step's human label (as ``step_file.HUMAN_LABEL``)."""


def step_and_joiner(text: str, joiner: object = None) -> tuple[str, str]:
    r"""A segment's text as a step and the text after it: ``step + joiner == text``.

    ``joiner`` is the joiner of the step file the trace was imported from (a step without it,
    the last, is kept whole); for any other trace, the joiner is the trailing whitespace.

    Example:
        >>> step_and_joiner("1. The answer is 2.\n"), step_and_joiner("a \n\n", "\n\n")
        (('1. The answer is 2.', '\n'), ('a ', '\n\n'))

    """
    if isinstance(joiner, str) and joiner:
        return (text[: -len(joiner)], joiner) if text.endswith(joiner) else (text, "")
    step = text.rstrip()
    return step, text[len(step) :]


def _run_of(value: object, where: str) -> RunRecord:
    """An exported run record: schema 4's (with its ``spec``), or an older export's, migrated."""
    if isinstance(value, dict) and "spec" in value:
        return read_record(RunRecord, value, where, TraceFormatError)
    return legacy_run_record(value, where)


@dataclass(frozen=True)
class ExportedFields:
    """The ``"llenvs"`` object of an exported row: what a step file cannot say of a trace."""

    __pydantic_config__ = RECORD

    trace_id: Text
    """The trace's id."""
    created_at: Text
    """When the trace was made."""
    task: TaskRecord
    """Its task record, identity included."""
    run: Annotated[RunRecord, Coded(_run_of, record_dict, "RunRecord")]
    """Its run record (an older export's is read as ``Trace.from_dict`` reads an old trace's)."""
    step_joiners: tuple[Text, ...]
    """The text after each step, so that the steps join to the response byte for byte."""
    step_rewards: tuple[Mapping[Text, Number], ...]
    """Each step's rewards that are neither its human label nor a PRM score."""
    final_rewards: Mapping[Text, Number]
    """The trace's final rewards."""
    success: Flag | None
    """Its verdict."""
    error: Text | None
    """Why it stopped early, if it did."""
    metadata: Mapping[Text, Any]
    """Its metadata."""


def exported_fields(trace: Trace) -> dict[str, Any]:
    """The ``"llenvs"`` object of ``trace``'s exported row (see the module).

    Example:
        >>> t = Trace(task=TaskRecord("e", "a", {}, 3, "q"), response="", segments=())
        >>> sorted(exported_fields(t))[:4]
        ['created_at', 'error', 'final_rewards', 'metadata']

    """
    joiner = trace.metadata.get("step_joiner")
    fields = ExportedFields(
        trace.trace_id,
        trace.created_at,
        trace.task,
        trace.run,
        tuple(step_and_joiner(s.text, joiner)[1] for s in trace.segments),
        tuple(_other_rewards(s.rewards, s.prm_scores) for s in trace.segments),
        trace.final_rewards,
        trace.success,
        trace.error,
        trace.metadata,
    )
    return record_dict(fields)


def dropped_fields(trace: Trace) -> tuple[str, ...]:
    """What of ``trace`` a step file cannot hold, in words (empty: nothing is lost).

    Example:
        >>> from llenvs.traces.records._segment import SegmentRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="Hi.",
        ...           segments=(SegmentRecord(0, 0, 3, "Hi.", token_ids=(5, 6)),))
        >>> dropped_fields(t)
        ('token ids and logprobs',)

    """
    dropped = []
    if any(s.token_ids is not None or s.logprobs is not None for s in trace.segments):
        dropped.append("token ids and logprobs")
    if any(s.flags != _REPLAYED for s in trace.segments):
        dropped.append("where each step came from (generated, forced): read back as replayed")
    if trace.messages and tuple(trace.messages) != _conversation(trace.task, trace.response):
        dropped.append("conversation turns beyond the question and the answer")
    if trace.parent is not None:
        dropped.append("the parent of a branch")
    return tuple(dropped)


def exported_trace_id(row: object) -> str | None:
    """The trace id a row of ``llenvs export`` gives back; None for any other row.

    The id is the ``"llenvs"`` object's (``--format prm800k``), else the row's own
    ``trace_id`` (``--format processbench`` and ``hf`` write one; outside files have none).

    Example:
        >>> exported_trace_id({"llenvs": {"trace_id": "ab12"}}), exported_trace_id({"id": 3})
        ('ab12', None)
        >>> exported_trace_id({"trace_id": "cd34", "steps": []})
        'cd34'

    """
    if not isinstance(row, dict):
        return None
    block = row.get(EXPORT_KEY)
    found = block.get("trace_id") if isinstance(block, dict) else row.get("trace_id")
    return found if isinstance(found, str) and found else None


def restored(trace: Trace, block: object, problem: str) -> Trace:
    """``trace`` (read from a step-file row) with what its ``"llenvs"`` object kept.

    ``problem`` is the row's problem: it must be the recorded task's prompt.

    Example:
        >>> from llenvs.traces.importers._pieces import segments_of
        >>> original = Trace(task=TaskRecord("e", "a", {}, 7, "q"), response="Hi.",
        ...                  messages=(Message("user", "q"), Message("assistant", "Hi.")),
        ...                  segments=segments_of(["Hi."]), final_rewards={"format": 1.0})
        >>> read = Trace(task=TaskRecord("e", "prm800k", {}, 0, "q"), response="Hi.",
        ...              segments=segments_of(["Hi."]))
        >>> restored(read, exported_fields(original), "q") == original
        True

    """
    kept = read_record(ExportedFields, block, EXPORT_KEY, TraceFormatError)
    if kept.task.prompt != problem:
        raise TraceFormatError(f"{EXPORT_KEY}.task.prompt is not the row's problem")
    if len(kept.step_rewards) != len(trace.segments):
        raise TraceFormatError(
            f"{EXPORT_KEY}.step_rewards must hold {len(trace.segments)} objects (one per step)"
        )
    segments = tuple(
        dataclasses.replace(segment, rewards={**extra, **segment.rewards})
        for segment, extra in zip(trace.segments, kept.step_rewards, strict=True)
    )
    return dataclasses.replace(
        trace,
        trace_id=kept.trace_id,
        created_at=kept.created_at,
        task=kept.task,
        run=kept.run,
        messages=_conversation(kept.task, trace.response),
        segments=segments,
        final_rewards=kept.final_rewards,
        success=kept.success,
        error=kept.error,
        metadata=kept.metadata,
    )


_REPLAYED = frozenset({SegmentFlag.REPLAYED})
"""The flags of every step an import reads."""


def _conversation(task: TaskRecord, response: str) -> tuple[Message, ...]:
    """The messages an import gives a trace: the system prompt, the question, the answer."""
    system = (Message("system", task.system_prompt),) if task.system_prompt is not None else ()
    return (*system, Message("user", task.prompt), Message("assistant", response))


def _other_rewards(rewards: Mapping[str, float], scores: Mapping[str, float]) -> dict[str, float]:
    """A step's rewards that are neither its human label nor a PRM score (kept apart)."""
    return {k: v for k, v in rewards.items() if k != HUMAN_LABEL and k not in scores}
