"""``ParentFilter``: which traces of a file an experiment branches.

Example:
    >>> from llenvs.traces import TaskRecord, Trace
    >>> def trace(i, ok):
    ...     return Trace(task=TaskRecord("legs", "a", {}, i, f"q{i}"), response="",
    ...                  segments=(), success=ok)
    >>> traces = [trace(0, True), trace(1, False), trace(2, False)]
    >>> [t.task.task_index for t in ParentFilter(outcome=ParentOutcome.FAILED).select(traces)]
    [1, 2]
    >>> ParentFilter.from_record({"outcome": "failed", "limit": 1}).to_record()
    {'outcome': 'failed', 'limit': 1}

"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from llenvs.traces.records import Trace

__all__ = ["ParentFilter", "ParentOutcome"]


class ParentOutcome(Enum):
    """Which parents by their verdict.

    Example:
        >>> [o.value for o in ParentOutcome]
        ['all', 'succeeded', 'failed']

    """

    ALL = "all"
    """Every trace."""
    SUCCEEDED = "succeeded"
    """Traces that succeeded."""
    FAILED = "failed"
    """Traces that did not succeed (a trace with no verdict is not one)."""

    def admits(self, success: bool | None) -> bool:
        """Whether a trace with this verdict is a parent.

        Example:
            >>> ParentOutcome.FAILED.admits(None), ParentOutcome.ALL.admits(None)
            (False, True)

        """
        if self is ParentOutcome.ALL:
            return True
        return success is (self is ParentOutcome.SUCCEEDED)


@dataclass(frozen=True)
class ParentFilter:
    """The parents of an experiment: a file's root traces, filtered, in file order.

    Example:
        >>> ParentFilter(limit=0)
        Traceback (most recent call last):
        ...
        ValueError: parents: limit must be >= 1 or absent, got 0

    """

    environment: str | None = None
    """Only traces of this environment (None: any)."""
    outcome: ParentOutcome = ParentOutcome.ALL
    """Only traces with this verdict."""
    tasks: tuple[int, ...] | None = None
    """Only these task indices (None: any)."""
    limit: int | None = None
    """The first N traces that pass (None: all)."""

    def __post_init__(self) -> None:
        if not isinstance(self.outcome, ParentOutcome):
            raise TypeError(f"parents: outcome must be a ParentOutcome, got {self.outcome!r}")
        if self.limit is not None and (isinstance(self.limit, bool) or self.limit < 1):
            raise ValueError(f"parents: limit must be >= 1 or absent, got {self.limit}")

    def select(self, traces: Iterable[Trace]) -> list[Trace]:
        """The traces that are parents: root traces passing every filter, at most ``limit``."""
        chosen: list[Trace] = []
        for trace in traces:
            if self.limit is not None and len(chosen) >= self.limit:
                break
            if trace.parent is not None:
                continue
            if self.environment is not None and trace.task.environment != self.environment:
                continue
            if self.tasks is not None and trace.task.task_index not in self.tasks:
                continue
            if self.outcome.admits(trace.success):
                chosen.append(trace)
        return chosen

    def to_record(self) -> dict[str, Any]:
        """The JSON object a recipe records (fields at their default left out)."""
        record: dict[str, Any] = {}
        if self.environment is not None:
            record["environment"] = self.environment
        if self.outcome is not ParentOutcome.ALL:
            record["outcome"] = self.outcome.value
        if self.tasks is not None:
            record["tasks"] = list(self.tasks)
        if self.limit is not None:
            record["limit"] = self.limit
        return record

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> ParentFilter:
        """The filter ``to_record`` wrote; a ``ValueError`` naming a bad field."""
        fields = dict(record)
        unknown = set(fields) - {"environment", "outcome", "tasks", "limit"}
        if unknown:
            raise ValueError(f"parents: unknown field(s) {', '.join(sorted(unknown))}")
        try:
            outcome = ParentOutcome(fields.get("outcome", "all"))
        except ValueError:
            choices = ", ".join(o.value for o in ParentOutcome)
            raise ValueError(
                f"parents.outcome: {fields.get('outcome')!r}: choose one of {choices}"
            ) from None
        tasks = fields.get("tasks")
        return cls(
            environment=fields.get("environment"),
            outcome=outcome,
            tasks=None if tasks is None else tuple(int(t) for t in tasks),
            limit=fields.get("limit"),
        )
