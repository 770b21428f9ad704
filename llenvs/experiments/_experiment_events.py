"""The events of an experiment run: ``BranchRecorded`` as each branch is recorded.

They are ``RunEvent``s (``llenvs.core``), taken by the same observers as the
runner's events (``StepTaken``, ``TrajectoryEnded``, ``Stopped``), which an experiment passes on.

Example:
    >>> BranchRecorded(done=3, planned=10, flips=1, remaining_s=14.0).record()
    {'done': 3, 'planned': 10, 'flips': 1, 'remaining_s': 14.0}

"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from llenvs.core import RunEvent

__all__ = ["BranchRecorded"]


@dataclass(frozen=True)
class BranchRecorded(RunEvent):
    """A branch finished and was recorded: how far the experiment is."""

    kind: ClassVar[str] = "experiment_branch"
    done: int
    """Branches recorded, those of earlier runs included."""
    planned: int
    """Branches the recipe makes in all."""
    flips: int
    """Branches so far whose verdict differs from their parent's."""
    remaining_s: float | None
    """Estimated seconds left, from this run's pace (None before a branch of this run)."""
