"""A trace: one response to one task, segment by segment, with how it was produced.

One trace is one JSON object (one line of a ``.jsonl`` file); ``docs/traces.md`` documents every
field. ``to_dict`` and ``from_dict`` round-trip exactly. Version 2 added ``run.prm`` (which PRM
scored the steps) and ``run.answer_opening``; version 3 added ``task.prompt_hash`` (the task's
identity across runs); version 4 records the run as its ``RunSpec`` (``run.spec``), with
``run.unknown`` for what an older record holds that maps to no spec field; version 5 lets a
segment carry ``annotations`` (what an imported study said about it). The record is declared
once (its fields below; ``llenvs.core.read_record`` checks and builds it); ``from_dict`` is the
reader of a line, which upgrades versions 1 to 4 first, by hand (``legacy_run_record`` before 4;
the hash computed from the prompt before 3), so the trace it gives is version 5 and writing
always writes the current version.

Example:
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="Hi. Bye.",
    ...           segments=(SegmentRecord(0, 0, 4, "Hi. "), SegmentRecord(1, 4, 8, "Bye.")))
    >>> Trace.from_dict(t.to_dict()) == t, t.to_dict()["schema_version"]
    (True, 5)

"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from llenvs.core import RECORD, Count, Flag, Message, Number, Text, read_record, record_dict
from llenvs.traces.records._branch import BranchRecord
from llenvs.traces.records._legacy_run import legacy_run_record
from llenvs.traces.records._record_reader import check_json_safe, check_scores, show
from llenvs.traces.records._run import RunRecord
from llenvs.traces.records._segment import SegmentRecord
from llenvs.traces.records._task import TaskRecord
from llenvs.traces.records._trace_format_error import TraceFormatError

__all__ = ["SCHEMA_VERSION", "SUPPORTED_SCHEMA_VERSIONS", "Trace"]

SCHEMA_VERSION = 5
"""The schema version this library writes (always: a trace read from an older version is
upgraded)."""

SUPPORTED_SCHEMA_VERSIONS = (1, 2, 3, 4, 5)
"""The schema versions this library reads: 1 (without ``run.prm`` and ``run.answer_opening``),
2 (without ``task.prompt_hash``), 3 (the run as separate fields, not a ``RunSpec``), 4 (without
``segments[].annotations``) and 5."""


def _new_id() -> str:
    return uuid.uuid4().hex


def _now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass(frozen=True, kw_only=True)
class Trace:
    """One response to one task, segment by segment; ``"".join(segment texts) == response``.

    Example:
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> len(t.trace_id), t.created_at.endswith("+00:00"), t.parent is None
        (32, True, True)

    """

    __pydantic_config__ = RECORD

    schema_version: Count = SCHEMA_VERSION
    """Version of this schema, always the current one (a reader upgrades the versions it knows,
    refuses the others)."""
    trace_id: Text = field(default_factory=_new_id)
    """Unique id of the trace (a uuid4 in hex by default); branches name their parent by it."""
    created_at: Text = field(default_factory=_now)
    """When the trace was made: an ISO 8601 timestamp in UTC."""
    task: TaskRecord
    """The task: environment, adapter and its kwargs, task index, prompt, expected answer."""
    run: RunRecord = field(default_factory=RunRecord)
    """The reproducibility record: the run spec (model, sampling and seed, segmenter, PRM,
    answer opening, task source), chat template, system prompt, version."""
    messages: tuple[Message, ...] = ()
    """The conversation (``role``, ``content``), the last assistant turn included."""
    response: Text
    """All assistant text, exactly as generated (feedback excluded)."""
    segments: tuple[SegmentRecord, ...]
    """The segments of ``response``, in order; their spans partition it."""
    final_rewards: Mapping[Text, Number] = field(default_factory=dict)
    """The whole-response rewards of the terminal step (OUTCOME and FORMAT), by name."""
    success: Flag | None = None
    """Every OUTCOME reward >= 1.0 (and at least one); None when no verdict was made."""
    error: Text | None = None
    """Why the trajectory stopped early (a backend failure after retries), or None."""
    parent: BranchRecord | None = None
    """For an intervention: the parent trace, the segment it branched at, the intervention."""
    metadata: Mapping[Text, Any] = field(default_factory=dict)
    """Free-form facts (JSON values only): prefix steps, token counts, an importer's notes."""

    def __post_init__(self) -> None:
        if self.schema_version != SCHEMA_VERSION:
            if self.schema_version in SUPPORTED_SCHEMA_VERSIONS:
                raise TraceFormatError(
                    f"a Trace is schema_version {SCHEMA_VERSION}; version "
                    f"{self.schema_version} is read, and upgraded, by Trace.from_dict"
                )
            raise TraceFormatError(_unknown_version(self.schema_version))
        for name, kind in (("task", TaskRecord), ("run", RunRecord)):
            if not isinstance(getattr(self, name), kind):
                raise TraceFormatError(f"{name}: must be a {kind.__name__}")
        if self.parent is not None and not isinstance(self.parent, BranchRecord):
            raise TraceFormatError("parent: must be a BranchRecord or None")
        if any(not isinstance(s, SegmentRecord) for s in self.segments):
            raise TraceFormatError("segments: must hold SegmentRecord values")
        if any(not isinstance(m, Message) for m in self.messages):
            raise TraceFormatError("messages: must hold Message values")
        for number, segment in enumerate(self.segments):
            if segment.index != number:
                raise TraceFormatError(f"segment {number} has index {segment.index}")
        if "".join(s.text for s in self.segments) != self.response:
            raise TraceFormatError("the segments' texts must join to the response exactly")
        offset = 0
        for segment in self.segments:
            if segment.start != offset:
                raise TraceFormatError(
                    f"segment {segment.index} starts at {segment.start}, expected {offset}"
                )
            offset = segment.end
        check_scores(self.final_rewards, "final_rewards")
        check_json_safe(dict(self.metadata), "metadata")

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this trace (``llenvs.core.record_dict``: JSON-safe values only).

        Example:
            >>> d = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=()).to_dict()
            >>> list(d)[:3]
            ['schema_version', 'trace_id', 'created_at']

        """
        return record_dict(self)

    @classmethod
    def from_dict(cls, data: object) -> Trace:
        """The trace of a JSON object; a ``TraceFormatError`` naming the field otherwise.

        An unknown ``schema_version`` is refused first, naming the supported ones. An older
        object is upgraded to version 5 by hand before it is read (versions 1 to 3: its run
        record is mapped to a ``RunSpec`` by ``legacy_run_record``; versions 1 and 2: its task's
        ``prompt_hash`` comes from its prompt; before 5, no segment has annotations), so writing
        it back writes version 5.

        Example:
            >>> Trace.from_dict({"schema_version": 9})  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            llenvs.traces.TraceFormatError: unknown trace schema_version 9: this llenvs ...
            >>> Trace.from_dict({"schema_version": 5, "response": 3})  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            llenvs.traces.TraceFormatError: trace.task: missing

        """
        if not isinstance(data, dict):
            raise TraceFormatError(f"trace: expected an object, got {show(data)}")
        if "schema_version" not in data:
            raise TraceFormatError("trace.schema_version: missing")
        version = data["schema_version"]
        if version not in SUPPORTED_SCHEMA_VERSIONS or isinstance(version, bool):
            raise TraceFormatError(_unknown_version(version))
        if version < 4 and "run" in data:
            run = legacy_run_record(data["run"])
            data = {**data, "run": record_dict(run)}
        if version < SCHEMA_VERSION:
            data = {**data, "schema_version": SCHEMA_VERSION}
        return read_record(cls, data, "trace", TraceFormatError)


def _unknown_version(version: object) -> str:
    supported = ", ".join(str(v) for v in SUPPORTED_SCHEMA_VERSIONS)
    return f"unknown trace schema_version {version!r}: this llenvs reads {supported}"
