"""Reward signals and the bundle of signals one step returns.

Example:
    >>> r = Rewards((Signal("correctness", RewardType.OUTCOME, 1.0),
    ...              Signal("format", RewardType.FORMAT, 1.0)))
    >>> r.total, r["format"].reward, [s.name for s in r.of_type(RewardType.OUTCOME)]
    (2.0, 1.0, ['correctness'])

"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from llenvs.core.errors import UnknownName

__all__ = ["RewardType", "Rewards", "Signal"]


class RewardType(Enum):
    """When a reward function runs and what it judges (invariant 5 of DESIGN.md).

    OUTCOME and FORMAT run once, on the terminal step, on the whole response; STEP and PROCESS
    run on every step, on segmented states.

    Example:
        >>> RewardType("process") is RewardType.PROCESS
        True

    """

    OUTCOME = "outcome"
    """Is the final answer right (decides success)."""
    STEP = "step"
    """A per-step reward computed by the environment."""
    FORMAT = "format"
    """Does the whole response follow the required format."""
    PROCESS = "process"
    """A per-step judgement of the reasoning so far (process reward models)."""

    @property
    def per_step(self) -> bool:
        """True for the types computed on every step (STEP, PROCESS).

        Example:
            >>> RewardType.STEP.per_step, RewardType.OUTCOME.per_step
            (True, False)

        """
        return self in (RewardType.STEP, RewardType.PROCESS)


@dataclass(frozen=True)
class Signal:
    """One reward from one reward function.

    Example:
        >>> Signal("prm", RewardType.PROCESS, 0.75).reward
        0.75

    """

    name: str
    """Name of the reward function that produced it."""
    reward_type: RewardType
    """What kind of reward it is."""
    reward: float
    """The value."""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    """Why: the extracted answer, the expected one, a checker's notes."""

    def __post_init__(self) -> None:
        if not isinstance(self.reward_type, RewardType):
            raise TypeError(f"reward_type must be a RewardType, got {self.reward_type!r}")
        if isinstance(self.reward, bool) or not isinstance(self.reward, int | float):
            raise TypeError(f"reward of {self.name!r} must be a number, got {self.reward!r}")
        if math.isnan(self.reward):
            raise ValueError(f"reward of {self.name!r} is NaN")


@dataclass(frozen=True)
class Rewards:
    """The signals of one step, looked up by name or by type; ``total`` sums them.

    Example:
        >>> Rewards().total
        0.0
        >>> Rewards((Signal("prm", RewardType.PROCESS, 0.5),)).get("missing") is None
        True

    """

    signals: tuple[Signal, ...] = ()
    """The signals, in the order of the environment's reward functions."""

    def __post_init__(self) -> None:
        names = [s.name for s in self.signals]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"two signals share a name: {', '.join(dupes)}")

    @property
    def total(self) -> float:
        """Sum of all rewards (0.0 when there are none)."""
        return float(sum(s.reward for s in self.signals))

    @property
    def names(self) -> tuple[str, ...]:
        """Names of the signals, in order."""
        return tuple(s.name for s in self.signals)

    def __getitem__(self, name: str) -> Signal:
        for signal in self.signals:
            if signal.name == name:
                return signal
        raise UnknownName("reward", name, self.names)

    def get(self, name: str) -> Signal | None:
        """The signal called ``name``, or None."""
        return next((s for s in self.signals if s.name == name), None)

    def of_type(self, reward_type: RewardType) -> tuple[Signal, ...]:
        """The signals of one type, in order."""
        return tuple(s for s in self.signals if s.reward_type is reward_type)

    def total_of(self, reward_type: RewardType) -> float:
        """Sum of the rewards of one type."""
        return float(sum(s.reward for s in self.of_type(reward_type)))

    def as_dict(self) -> dict[str, float]:
        """``{name: reward}`` for every signal."""
        return {s.name: s.reward for s in self.signals}

    def __contains__(self, name: object) -> bool:
        return any(s.name == name for s in self.signals)

    def __iter__(self) -> Iterator[Signal]:
        return iter(self.signals)

    def __len__(self) -> int:
        return len(self.signals)
