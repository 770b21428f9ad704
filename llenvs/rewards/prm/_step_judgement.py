"""A PRM's verdict on one step: its score (None: unrated) and, where the PRM says why, its notes.

Example:
    >>> StepJudgement(0.0, {"verdict": "wrong"}).score, StepJudgement(None).rated
    (0.0, False)

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["StepJudgement"]


@dataclass(frozen=True)
class StepJudgement:
    """One step's score in [0, 1] (1: the step is right; None: unrated) and the PRM's notes.

    Example:
        >>> StepJudgement(0.75).notes
        {}

    """

    score: float | None
    """How likely the step is right, given the question and the steps before it; None when the
    PRM does not rate the step (never a guess)."""
    notes: Mapping[str, Any] = field(default_factory=dict)
    """Why, when the PRM can say (JSON-ready: what was checked, what failed)."""

    def __post_init__(self) -> None:
        if self.score is None:
            return
        if isinstance(self.score, bool) or not isinstance(self.score, int | float):
            raise TypeError(f"score must be a number or None (unrated), got {self.score!r}")

    @property
    def rated(self) -> bool:
        """Whether the PRM gave the step a score.

        Example:
            >>> StepJudgement(0.5).rated
            True

        """
        return self.score is not None
