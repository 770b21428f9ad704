"""``ParentFilter``: which traces of a file an experiment branches.

Example:
    >>> from llenvs.core import read_record, record_dict
    >>> from llenvs.traces import TaskRecord, Trace
    >>> def trace(i, ok):
    ...     return Trace(task=TaskRecord("legs", "a", {}, i, f"q{i}"), response="",
    ...                  segments=(), success=ok)
    >>> traces = [trace(0, True), trace(1, False), trace(2, False)]
    >>> [t.task.task_index for t in ParentFilter(outcome=ParentOutcome.FAILED).select(traces)]
    [1, 2]
    >>> record_dict(read_record(ParentFilter, {"outcome": "failed", "limit": 1}))
    {'outcome': 'failed', 'limit': 1}
    >>> record_dict(ParentFilter())
    {'outcome': 'all'}

"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from llenvs.core import (
    RECORD,
    Count,
    Positive,
    Text,
    omit_when_empty,
)
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
        ValueError: limit: expected an integer >= 1 or absent, got 0

    """

    __pydantic_config__ = RECORD
    __get_pydantic_core_schema__ = omit_when_empty("environment", "tasks", "limit")

    environment: Text | None = None
    """Only traces of this environment (None: any)."""
    outcome: ParentOutcome = ParentOutcome.ALL
    """Only traces with this verdict: ``all``, ``succeeded`` or ``failed`` (``ParentOutcome``)."""
    tasks: tuple[Count, ...] | None = None
    """Only these task indices (None: any)."""
    limit: Positive | None = None
    """The first N traces that pass (None: all)."""

    def __post_init__(self) -> None:
        if not isinstance(self.outcome, ParentOutcome):
            raise TypeError(f"parents: outcome must be a ParentOutcome, got {self.outcome!r}")
        if self.limit is not None and (isinstance(self.limit, bool) or self.limit < 1):
            raise ValueError(f"limit: expected an integer >= 1 or absent, got {self.limit}")
        # an empty name or list would select nothing, and is written as absent (any)
        if self.environment == "":
            raise ValueError("environment: name one, or leave it out for any")
        if self.tasks == ():
            raise ValueError("tasks: give at least one task index, or leave it out for any")

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
