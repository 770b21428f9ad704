"""Typed events of an evaluation run, each a JSON line in the run's log file.

A run emits ``RunStarted``, then ``StepTaken`` for every step, ``TrajectoryEnded`` for every
finished trajectory (``TrajectoryErrored`` instead when a backend failure ended it), and
``RunEnded``. ``event_record`` turns any of them into the JSON object written to the log. A step
event's ``segment_index`` counts from 0, as a trace's segments do (the step's ``info`` counts the
segments consumed, so its first step says 1).

Example:
    >>> record = event_record(TrajectoryEnded(task_index=3, success=True, steps=4))
    >>> record["event"], record["task_index"], "time" in record
    ('trajectory_end', 3, True)

"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar, Protocol

from llenvs.traces.segment_flag import SegmentFlag

__all__ = [
    "EvaluationEvent",
    "EventSink",
    "RunEnded",
    "RunStarted",
    "StepTaken",
    "TrajectoryEnded",
    "TrajectoryErrored",
    "event_record",
]


@dataclass(frozen=True)
class RunStarted:
    """An evaluation began.

    Example:
        >>> RunStarted("leg_counting", "scripted", "sentence", (0, 1), resumed=0).kind
        'start'

    """

    kind: ClassVar[str] = "start"
    environment: str
    """The environment's name."""
    model: str
    """The backend's name."""
    segmenter: str
    """The segmenter's spec."""
    task_indices: tuple[int, ...]
    """Every task of the evaluation."""
    resumed: int
    """Tasks already finished in the results file, not run again."""


@dataclass(frozen=True)
class StepTaken:
    """A trajectory took one step.

    Example:
        >>> StepTaken(0, 0, "Two dogs. ", {"correctness": 0.0}, terminal=False).kind
        'step'

    """

    kind: ClassVar[str] = "step"
    task_index: int
    """The trajectory's task."""
    segment_index: int
    """Position of the segment in the response, 0-based like a trace's ``segments[].index``."""
    text: str
    """The segment."""
    rewards: Mapping[str, float]
    """The step's rewards by name."""
    terminal: bool
    """Whether the step ended the episode."""
    flags: frozenset[SegmentFlag] = frozenset()
    """How the segment came to be (logged as their sorted values)."""


@dataclass(frozen=True)
class TrajectoryEnded:
    """A trajectory finished.

    Example:
        >>> TrajectoryEnded(0, success=False, steps=2).kind
        'trajectory_end'

    """

    kind: ClassVar[str] = "trajectory_end"
    task_index: int
    """The trajectory's task."""
    success: bool
    """Whether it succeeded."""
    steps: int
    """How many steps it took."""


@dataclass(frozen=True)
class TrajectoryErrored:
    """A backend failure, after retries, ended a trajectory (its steps are kept).

    Example:
        >>> TrajectoryErrored(0, "BackendError: down", steps=1).kind
        'error'

    """

    kind: ClassVar[str] = "error"
    task_index: int
    """The trajectory's task."""
    error: str
    """The failure."""
    steps: int
    """Steps taken before it."""


@dataclass(frozen=True)
class RunEnded:
    """An evaluation finished.

    Example:
        >>> RunEnded(completed=2, succeeded=1, errors=0, seconds=0.5).kind
        'end'

    """

    kind: ClassVar[str] = "end"
    completed: int
    """Tasks with a finished trajectory (resumed ones included)."""
    succeeded: int
    """Of those, the successful ones."""
    errors: int
    """Trajectories ended by a backend failure."""
    seconds: float
    """Wall time of the run."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Anything else worth logging (the results file, for one)."""


EvaluationEvent = RunStarted | StepTaken | TrajectoryEnded | TrajectoryErrored | RunEnded
"""Any event of an evaluation run."""


def event_record(event: EvaluationEvent) -> dict[str, Any]:
    """The JSON object of ``event``: ``event`` (its kind), ``time`` (UTC), then its fields.

    Example:
        >>> event_record(RunEnded(1, 1, 0, 0.25))["seconds"]
        0.25

    """
    fields = dataclasses.asdict(event)
    for key, value in fields.items():
        if isinstance(value, tuple):
            fields[key] = list(value)
        elif isinstance(value, frozenset):
            fields[key] = sorted(flag.value for flag in value)
    return {"event": event.kind, "time": datetime.now(UTC).isoformat(), **fields}


class EventSink(Protocol):
    """Receives the events of a run (a progress bar, a log file, a test's list).

    Example:
        >>> class Collect:
        ...     def __init__(self): self.events = []
        ...     def emit(self, event): self.events.append(event)
        ...     def close(self): pass
        >>> sink: EventSink = Collect()
        >>> sink.emit(RunEnded(0, 0, 0, 0.0)); len(sink.events)
        1

    """

    def emit(self, event: EvaluationEvent) -> None:
        """Take one event."""
        ...

    def close(self) -> None:
        """The run is over: flush, close files, stop bars."""
        ...
