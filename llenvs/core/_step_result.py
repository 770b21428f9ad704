"""What a step returns.

Example:
    >>> from llenvs.core._state import Observation, State, StateMetadata
    >>> s = State(Observation("q"), None, StateMetadata(0, step=1, is_terminal=True))
    >>> StepResult(next_state=s, rewards=Rewards(), terminated=True).rewards.total
    0.0

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic

from llenvs.core._signal import Rewards
from llenvs.core._state import HiddenT, State

__all__ = ["StepResult"]


@dataclass(frozen=True)
class StepResult(Generic[HiddenT]):
    """The outcome of ``env.step(state, action)``.

    Example:
        >>> from llenvs.core._state import Observation, StateMetadata
        >>> r = StepResult(State(Observation("q"), None, StateMetadata(0)), Rewards())
        >>> r.terminated, r.done
        (False, False)

    """

    next_state: State[HiddenT]
    """The state after the step."""
    rewards: Rewards
    """The signals of this step (``rewards.total`` sums them)."""
    terminated: bool = False
    """True when the task ended the episode (the answer was given, generation ended)."""
    truncated: bool = False
    """True when the episode was cut short (a step limit) before the task ended it."""
    info: Mapping[str, Any] = field(default_factory=dict)
    """Free-form facts about the step (``segment_index``, runner flags such as ``forced``)."""

    @property
    def done(self) -> bool:
        """True when the episode is over, terminated or truncated."""
        return self.terminated or self.truncated
