"""``TrajectoryResult``: what ``run_trajectory`` returns.

Example:
    >>> TrajectoryResult(Trajectory(), success=False).metadata
    {}

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from llenvs.core import Message, RewardType, Trajectory

__all__ = ["TrajectoryResult", "is_success"]


def is_success(trajectory: Trajectory) -> bool:
    """True when the trajectory has an OUTCOME signal and every OUTCOME signal is >= 1.0.

    Example:
        >>> is_success(Trajectory())
        False

    """
    outcomes = [
        signal.reward
        for transition in trajectory
        for signal in transition.rewards.of_type(RewardType.OUTCOME)
    ]
    return bool(outcomes) and all(reward >= 1.0 for reward in outcomes)


@dataclass(frozen=True)
class TrajectoryResult:
    """One episode run by the runner.

    ``metadata`` holds JSON values only: ``task_index``, ``prefix_steps`` (replayed steps),
    ``generated_tokens``, ``calls`` (backend calls), ``finish_reason`` (of the last call:
    ``"stop"``, ``"length"``, ``"boundary"``, or None), ``truncated`` (``max_steps`` reached),
    ``budget_exhausted`` (the token budget ran out) and ``feedback`` (each feedback injected:
    ``after_segment``, the number of segments before it, and ``text``).

    Example:
        >>> TrajectoryResult(Trajectory(), success=False).success
        False

    """

    trajectory: Trajectory
    """Every transition, replayed prefix steps included."""
    success: bool
    """At least one OUTCOME signal, and every OUTCOME signal >= 1.0."""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    """Facts about the run (see the class docstring)."""
    messages: tuple[Message, ...] = ()
    """The conversation: system and user turns, assistant turns, feedback, the last turn."""
    error: str | None = None
    """Why the trajectory stopped early (a backend failure after retries), or None."""

    @property
    def text(self) -> str:
        """All assistant text of the episode (feedback excluded).

        Example:
            >>> TrajectoryResult(Trajectory(), success=False).text
            ''

        """
        return self.trajectory.text
