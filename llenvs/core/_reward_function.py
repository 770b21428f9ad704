"""The reward-function contract, and its optional batch hook.

A reward function has a ``name``, a ``reward_type`` and ``compute(state, action, next_state)``.
Which states it receives depends on its type (invariant 5 of DESIGN.md): OUTCOME and FORMAT
functions see the base environment's states and the whole response once, on the terminal step;
STEP and PROCESS functions see segmented states on every step.

Example:
    >>> class Length:
    ...     name = "length"
    ...     reward_type = RewardType.STEP
    ...     def compute(self, state, action, next_state):
    ...         return Signal(self.name, self.reward_type, float(len(action.text)))
    >>> isinstance(Length(), RewardFunction)
    True

"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from llenvs.core._action import Action
from llenvs.core._signal import RewardType, Signal
from llenvs.core._state import State

__all__ = ["BatchRewardFunction", "RewardFunction", "StepTriple"]

StepTriple = tuple[State[Any], Action, State[Any]]
"""One step as a reward function sees it: (state, action, next_state)."""


@runtime_checkable
class RewardFunction(Protocol):
    """Scores one step.

    Example:
        >>> class Zero:
        ...     name, reward_type = "zero", RewardType.STEP
        ...     def compute(self, state, action, next_state):
        ...         return Signal(self.name, self.reward_type, 0.0)
        >>> isinstance(Zero(), RewardFunction)
        True

    """

    @property
    def name(self) -> str:
        """Unique name of the reward within an environment."""
        ...

    @property
    def reward_type(self) -> RewardType:
        """When it runs and what it judges."""
        ...

    def compute(self, state: State[Any], action: Action, next_state: State[Any]) -> Signal:
        """Score the step from ``state`` by ``action`` to ``next_state``."""
        ...


@runtime_checkable
class BatchRewardFunction(RewardFunction, Protocol):
    """A per-step reward function that can score every step of a trace at once.

    ``SegmentedEnvironment.replay`` calls ``compute_batch`` once with all the steps of the trace
    instead of ``compute`` once per step (a PRM scores a whole trace in one forward pass). It
    must return exactly what ``compute`` would have returned for each step, in order.

    Example:
        >>> class Ones:
        ...     name, reward_type = "ones", RewardType.PROCESS
        ...     def compute(self, state, action, next_state):
        ...         return Signal(self.name, self.reward_type, 1.0)
        ...     def compute_batch(self, steps):
        ...         return [Signal(self.name, self.reward_type, 1.0) for _ in steps]
        >>> isinstance(Ones(), BatchRewardFunction)
        True

    """

    def compute_batch(self, steps: Sequence[StepTriple]) -> Sequence[Signal]:
        """Score every step, in order; one signal per step."""
        ...
