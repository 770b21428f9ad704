"""The environment contract: a task set with ``reset`` and ``step`` over frozen states.

Environments are functional: ``step(state, action)`` never changes ``state`` and returns a new
one, so any state can be stepped again (branching, resampling, interventions).

Example:
    >>> env = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=3, seed=1)
    >>> isinstance(env, Environment), len(env)
    (True, 3)
    >>> state, info = env.reset(options={"task_index": 0})
    >>> state.observation.prompt.startswith("Your task is to count")
    True

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from llenvs.core._action import Action
from llenvs.core._reward_function import RewardFunction
from llenvs.core._state import State
from llenvs.core._step_result import StepResult

__all__ = ["EnvSpec", "Environment", "ResetOptions"]

ResetOptions = Mapping[str, Any]
"""Options of ``reset``: ``{"task_index": i}`` picks a task."""


@dataclass(frozen=True)
class EnvSpec:
    """How an environment was made, enough to make it again through the registry.

    Example:
        >>> EnvSpec("leg_counting", "reasoning_gym", {"size": 100, "seed": 42}).stop_sequences
        ()

    """

    name: str
    """The environment's name within its adapter (a reasoning-gym dataset, a hub dataset)."""
    adapter: str
    """The adapter that made it (``"reasoning_gym"``, ``"huggingface"``, ...)."""
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    """Keyword arguments given to the registry (``size``, ``seed``, ...)."""
    stop_sequences: tuple[str, ...] = ()
    """Strings after which generation should stop (kept in the text), e.g. ``"</answer>"``."""
    segmenter: str | None = None
    """Spec of the segmenter, for segmented environments; None for single-step ones."""


@runtime_checkable
class Environment(Protocol):
    """What every environment and wrapper offers; ``check_env`` tests an object against it.

    Example:
        >>> from llenvs.core._check_env import check_env
        >>> env = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=3)
        >>> check_env(env)

    """

    @property
    def spec(self) -> EnvSpec:
        """How the environment was made."""
        ...

    @property
    def reward_functions(self) -> tuple[RewardFunction, ...]:
        """The reward functions, in the order their signals appear."""
        ...

    def __len__(self) -> int:
        """Number of tasks."""
        ...

    def reset(
        self, *, seed: int | None = None, options: ResetOptions | None = None
    ) -> tuple[State[Any], dict[str, Any]]:
        """Start an episode; ``options={"task_index": i}`` picks the task.

        Without a task index, the task is drawn from the environment's random generator,
        seeded by ``seed`` when given. Returns the first state and an info dict.
        """
        ...

    def step(self, state: State[Any], action: Action) -> StepResult[Any]:
        """Take ``action`` in ``state``; ``state`` is left unchanged."""
        ...

    def is_complete(self, text: str) -> bool:
        """Whether a response text has ended the task (for example, the answer is closed)."""
        ...
