"""Transitions and trajectories: the record of an episode.

Example:
    >>> Trajectory().text, len(Trajectory())
    ('', 0)

"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from llenvs.core._action import Action
from llenvs.core._signal import Rewards
from llenvs.core._state import State
from llenvs.core._step_result import StepResult

__all__ = ["Trajectory", "Transition"]


@dataclass(frozen=True)
class Transition:
    """One step of an episode: the state, the action taken, and what the step returned.

    Example:
        >>> from llenvs.core._state import Observation, StateMetadata
        >>> s = State(Observation("q"), None, StateMetadata(0))
        >>> t = Transition(s, Action("x"), StepResult(s, Rewards()))
        >>> t.action.text, t.rewards.total
        ('x', 0.0)

    """

    state: State[Any]
    """The state the action was taken in."""
    action: Action
    """The action taken."""
    result: StepResult[Any]
    """What ``step`` returned."""

    @property
    def next_state(self) -> State[Any]:
        """The state after the step."""
        return self.result.next_state

    @property
    def rewards(self) -> Rewards:
        """The signals of the step."""
        return self.result.rewards

    @property
    def info(self) -> Mapping[str, Any]:
        """The step's info."""
        return self.result.info


@dataclass(frozen=True)
class Trajectory:
    """The transitions of one episode, in order.

    Example:
        >>> Trajectory().is_done
        False

    """

    transitions: tuple[Transition, ...] = ()
    """The steps, in order."""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    """Facts about the whole episode (model, segmenter spec, ...)."""

    def __len__(self) -> int:
        return len(self.transitions)

    def __iter__(self) -> Iterator[Transition]:
        return iter(self.transitions)

    def __getitem__(self, index: int) -> Transition:
        return self.transitions[index]

    @property
    def text(self) -> str:
        """The concatenated text of all actions."""
        return "".join(t.action.text for t in self.transitions)

    @property
    def total_reward(self) -> float:
        """Sum of the rewards of every step."""
        return float(sum(t.rewards.total for t in self.transitions))

    @property
    def is_done(self) -> bool:
        """True when the last step ended the episode."""
        return bool(self.transitions) and self.transitions[-1].result.done

    def appended(self, transition: Transition) -> Trajectory:
        """A new trajectory with ``transition`` added at the end."""
        return Trajectory((*self.transitions, transition), self.metadata)
