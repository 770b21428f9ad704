"""The state of an episode: what the model sees, what the environment keeps, and bookkeeping.

States are frozen values. Environments never change a state; ``step`` returns a new one, so any
state can be stepped again (branching) or stored (traces).

Example:
    >>> s = State(Observation(prompt="2 + 2?"), hidden=None, metadata=StateMetadata(task_index=0))
    >>> s.observation.prompt, s.metadata.is_terminal
    ('2 + 2?', False)

"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["HiddenT", "Observation", "State", "StateMetadata"]

HiddenT = TypeVar("HiddenT", covariant=True)


@dataclass(frozen=True)
class Observation:
    """What the model is shown at the start of an episode.

    Example:
        >>> Observation(prompt="How many legs?").system_prompt is None
        True

    """

    prompt: str
    """The whole user message: the question followed by the answer-format instruction."""
    system_prompt: str | None = None
    """A system message to send before the prompt, or None for none."""


@dataclass(frozen=True)
class StateMetadata:
    """Bookkeeping about where an episode stands.

    Example:
        >>> StateMetadata(task_index=3, step=2).is_terminal
        False

    """

    task_index: int
    """Index of the task in its environment (0-based)."""
    step: int = 0
    """Number of steps taken in this episode so far."""
    is_terminal: bool = False
    """True once the episode has ended; stepping a terminal state is an error."""
    is_truncated: bool = False
    """True when the episode was cut short (a step limit) rather than ended by the task."""
    seed: int | None = None
    """The seed given to ``reset``, if any."""


@dataclass(frozen=True)
class State(Generic[HiddenT]):
    """One state of an episode.

    Example:
        >>> State(Observation("q"), hidden={"answer": "4"}, metadata=StateMetadata(0)).hidden
        {'answer': '4'}

    """

    observation: Observation
    """What the model sees."""
    hidden: HiddenT
    """What the environment keeps to itself (the task, the expected answer, segment progress)."""
    metadata: StateMetadata
    """Where the episode stands."""
