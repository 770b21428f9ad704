"""A PRM's verdict on one step: its score and, where the PRM says why, its notes.

Example:
    >>> StepJudgement(0.0, {"verdict": "wrong"}).score
    0.0

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["StepJudgement"]


@dataclass(frozen=True)
class StepJudgement:
    """One step's score in [0, 1] (1: the step is right) and the PRM's notes on it.

    Example:
        >>> StepJudgement(0.75).notes
        {}

    """

    score: float
    """How likely the step is right, given the question and the steps before it."""
    notes: Mapping[str, Any] = field(default_factory=dict)
    """Why, when the PRM can say (JSON-ready: what was checked, what failed)."""

    def __post_init__(self) -> None:
        if isinstance(self.score, bool) or not isinstance(self.score, int | float):
            raise TypeError(f"score must be a number, got {self.score!r}")
