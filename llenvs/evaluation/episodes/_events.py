"""The events of the runner and of an evaluation, each a JSON line in the run's log file.

These are the ``RunEvent``s (``llenvs.core``) a run of segments emits to its
``observer``: ``StepTaken`` for every live step (its ``SegmentRecord``, as the trace will hold
it), ``TrajectoryEnded`` for every finished trajectory (``TrajectoryErrored`` instead when a
backend failure ended it), and ``Stopped`` (core) when a ``StopToken`` ended the call early. An
evaluation wraps them in ``RunStarted`` and ``RunEnded``; ``event_record`` turns any event into
the JSON object written to the log. A step's ``segment_index`` counts from 0, as a trace's
segments do.

Example:
    >>> result = TrajectoryResult(Trajectory(), success=True)
    >>> record = event_record(TrajectoryEnded(task_index=3, result=result))
    >>> record["event"], record["task_index"], "time" in record
    ('trajectory_end', 3, True)

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar

from llenvs.core import RunEvent
from llenvs.evaluation.episodes._trajectory_result import TrajectoryResult
from llenvs.traces.records import SegmentFlag, SegmentRecord

__all__ = [
    "RunEnded",
    "RunStarted",
    "StepTaken",
    "TrajectoryEnded",
    "TrajectoryErrored",
    "TrajectoryOver",
    "event_record",
    "trajectory_event",
]


@dataclass(frozen=True)
class RunStarted(RunEvent):
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
class StepTaken(RunEvent):
    """A trajectory took one live step: its segment, scored, as the trace will record it.

    Example:
        >>> segment = SegmentRecord(0, 0, 10, "Two dogs. ", rewards={"correctness": 0.0},
        ...                         flags=frozenset({SegmentFlag.GENERATED}))
        >>> step = StepTaken(task_index=3, segment=segment)
        >>> step.kind, step.segment_index, step.text, step.record()["flags"]
        ('step', 0, 'Two dogs. ', ['generated'])

    """

    kind: ClassVar[str] = "step"
    task_index: int
    """The trajectory's task."""
    segment: SegmentRecord
    """The segment, its place in the response, rewards and flags (as in the trace)."""
    trajectory: int = 0
    """Which trajectory of the call: its position in the tasks (or branches) it was given."""

    @property
    def segment_index(self) -> int:
        """Position of the segment in the response, 0-based like a trace's ``segments[].index``."""
        return self.segment.index

    @property
    def text(self) -> str:
        """The segment's text."""
        return self.segment.text

    @property
    def rewards(self) -> Mapping[str, float]:
        """The step's rewards by name (an unrated PRM step has none)."""
        return self.segment.rewards

    @property
    def terminal(self) -> bool:
        """Whether the step ended the episode."""
        return self.segment.terminal

    @property
    def flags(self) -> frozenset[SegmentFlag]:
        """How the segment came to be."""
        return self.segment.flags

    def record(self) -> dict[str, Any]:
        """The log's fields: task, trajectory, segment index, text, rewards, terminal, flags."""
        return {
            "task_index": self.task_index,
            "trajectory": self.trajectory,
            "segment_index": self.segment_index,
            "text": self.text,
            "rewards": dict(self.rewards),
            "terminal": self.terminal,
            "flags": sorted(flag.value for flag in self.flags),
        }


@dataclass(frozen=True)
class TrajectoryOver(RunEvent):
    """A trajectory of the call is over: ``TrajectoryEnded`` or ``TrajectoryErrored``.

    Example:
        >>> TrajectoryOver(4, TrajectoryResult(Trajectory(), success=True), 1).record()
        {'task_index': 4, 'trajectory': 1, 'steps': 0}

    """

    task_index: int
    """The trajectory's task."""
    result: TrajectoryResult
    """The trajectory as it ended (``result.error`` says why, when a failure ended it)."""
    trajectory: int = 0
    """Which trajectory of the call (see ``StepTaken.trajectory``)."""

    @property
    def steps(self) -> int:
        """How many steps it took (replayed prefix steps included)."""
        return len(self.result.trajectory)

    def record(self) -> dict[str, Any]:
        """The log's fields: task, trajectory, steps."""
        return {"task_index": self.task_index, "trajectory": self.trajectory, "steps": self.steps}


@dataclass(frozen=True)
class TrajectoryEnded(TrajectoryOver):
    """A trajectory finished (``TrajectoryErrored`` instead when a backend failure ended it).

    Example:
        >>> ended = TrajectoryEnded(0, TrajectoryResult(Trajectory(), success=False))
        >>> ended.kind, ended.success, ended.steps, ended.record()
        ('trajectory_end', False, 0, {'task_index': 0, 'trajectory': 0, 'steps': 0, 'success': False})

    """  # noqa: E501

    kind: ClassVar[str] = "trajectory_end"

    @property
    def success(self) -> bool:
        """Whether it succeeded."""
        return self.result.success

    def record(self) -> dict[str, Any]:
        """The log's fields: task, trajectory, steps, success."""
        return {**super().record(), "success": self.success}


@dataclass(frozen=True)
class TrajectoryErrored(TrajectoryOver):
    """A backend failure, after retries, ended a trajectory (its steps are kept).

    Example:
        >>> failed = TrajectoryResult(Trajectory(), success=False, error="BackendError: down")
        >>> TrajectoryErrored(0, failed).record()["error"]
        'BackendError: down'

    """

    kind: ClassVar[str] = "error"

    @property
    def error(self) -> str:
        """The failure."""
        return self.result.error or ""

    def record(self) -> dict[str, Any]:
        """The log's fields: task, trajectory, steps, error."""
        return {**super().record(), "error": self.error}


def trajectory_event(
    task_index: int, result: TrajectoryResult, trajectory: int = 0
) -> TrajectoryOver:
    """``TrajectoryEnded``, or ``TrajectoryErrored`` when a backend failure ended ``result``.

    Example:
        >>> trajectory_event(2, TrajectoryResult(Trajectory(), success=True)).kind
        'trajectory_end'

    """
    if result.error is None:
        return TrajectoryEnded(task_index, result, trajectory)
    return TrajectoryErrored(task_index, result, trajectory)


@dataclass(frozen=True)
class RunEnded(RunEvent):
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


def event_record(event: RunEvent) -> dict[str, Any]:
    """The JSON object of ``event``: ``event`` (its kind), ``time`` (UTC), then its fields.

    Example:
        >>> event_record(RunEnded(1, 1, 0, 0.25))["seconds"]
        0.25
        >>> event_record(RunStarted("e", "m", "sentence", (0, 1), resumed=0))["task_indices"]
        [0, 1]

    """
    fields = {
        key: list(value) if isinstance(value, tuple) else value
        for key, value in event.record().items()
    }
    return {"event": event.kind, "time": datetime.now(UTC).isoformat(), **fields}
