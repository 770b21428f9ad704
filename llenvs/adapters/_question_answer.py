"""A single-turn question-answer environment: the base class of the dataset adapters.

One step: the action is the whole response; the step is terminal and carries the outcome and
format rewards. Subclasses say how to fetch task ``i`` and how to score an answer.

Example:
    >>> from llenvs.core import Action
    >>> from llenvs.core._environment import EnvSpec
    >>> class Sums(QuestionAnswerEnvironment):
    ...     def __len__(self):
    ...         return 3
    ...     def task(self, index):
    ...         return Task(index, f"What is {index} + {index}?", str(2 * index))
    ...     def score(self, answer, task):
    ...         return float(answer == task.answer)
    >>> env = Sums(EnvSpec("sums", "example"))
    >>> state, _ = env.reset(options={"task_index": 2})
    >>> env.step(state, Action("<answer>4</answer>")).rewards.total
    2.0

"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from llenvs.adapters._answer_rewards import CorrectnessReward, FormatReward
from llenvs.adapters._answers import ANSWER_CLOSE, extract_answer
from llenvs.adapters._task import Task
from llenvs.core import (
    Action,
    EnvSpec,
    Observation,
    ResetOptions,
    RewardFunction,
    Rewards,
    State,
    StateMetadata,
    StepResult,
)
from llenvs.core.errors import TaskIndexError, TerminalStateError

__all__ = ["DEFAULT_INSTRUCTION", "QuestionAnswerEnvironment"]

DEFAULT_INSTRUCTION = (
    "Think step by step. Then give your final answer in the format <answer>answer here</answer>. "
    "Do not explain your reasoning inside the answer tags, provide only the final answer."
)
"""The answer-format instruction appended to each question when an adapter has none of its own."""

_OPTIONS = ("task_index",)


class QuestionAnswerEnvironment(ABC):
    """Base class of single-turn question-answer environments.

    Arguments:
        spec: how the environment was made.
        instruction: the answer-format instruction placed after each question.
        system_prompt: a system message, or None.
        reward_functions: replaces the default ``(correctness, format)``.

    Example:
        >>> issubclass(QuestionAnswerEnvironment, ABC)
        True

    """

    def __init__(
        self,
        spec: EnvSpec,
        *,
        instruction: str = DEFAULT_INSTRUCTION,
        system_prompt: str | None = None,
        reward_functions: Sequence[RewardFunction] | None = None,
    ) -> None:
        if not spec.stop_sequences:
            spec = replace(spec, stop_sequences=(ANSWER_CLOSE,))
        self._spec = spec
        self.instruction = instruction
        self.system_prompt = system_prompt
        self._reward_functions: tuple[RewardFunction, ...] = (
            (CorrectnessReward(self.score), FormatReward())
            if reward_functions is None
            else tuple(reward_functions)
        )
        self._rng = random.Random()

    @abstractmethod
    def __len__(self) -> int:
        """Number of tasks."""

    @abstractmethod
    def task(self, index: int) -> Task:
        """Task ``index`` (already range-checked)."""

    @abstractmethod
    def score(self, answer: str | None, task: Task) -> float:
        """Score an extracted answer (None when the response gave none) in [0, 1]."""

    @property
    def spec(self) -> EnvSpec:
        """How the environment was made."""
        return self._spec

    @property
    def reward_functions(self) -> tuple[RewardFunction, ...]:
        """``correctness`` (OUTCOME) and ``format`` (FORMAT) unless replaced."""
        return self._reward_functions

    def prompt(self, task: Task) -> str:
        """The whole user message: the question, then the answer-format instruction."""
        question = task.question.rstrip()
        return f"{question}\n\n{self.instruction}" if self.instruction else question

    def reset(
        self, *, seed: int | None = None, options: ResetOptions | None = None
    ) -> tuple[State[Task], dict[str, Any]]:
        """Start an episode on ``options["task_index"]``, or on a task drawn with ``seed``."""
        options = dict(options or {})
        unknown = sorted(set(options) - set(_OPTIONS))
        if unknown:
            raise ValueError(
                f"unknown reset option(s) {', '.join(unknown)}: valid options are "
                f"{', '.join(_OPTIONS)}"
            )
        if seed is not None:
            self._rng = random.Random(seed)
        size = len(self)
        if "task_index" in options and options["task_index"] is not None:
            index = options["task_index"]
            if isinstance(index, bool) or not isinstance(index, int):
                raise TypeError(f"task_index must be an int, got {index!r}")
            if not 0 <= index < size:
                raise TaskIndexError(index, size)
        else:
            if size == 0:
                raise TaskIndexError(0, 0)
            index = self._rng.randrange(size)
        task = self.task(index)
        state = State(
            Observation(self.prompt(task), self.system_prompt),
            task,
            StateMetadata(task_index=index, seed=seed),
        )
        return state, {"task_index": index}

    def step(self, state: State[Any], action: Action) -> StepResult[Any]:
        """Judge the whole response ``action.text``; the step is always terminal."""
        if state.metadata.is_terminal:
            raise TerminalStateError(
                f"task {state.metadata.task_index} has already been answered: start a new "
                "episode with reset()"
            )
        next_state = replace(
            state,
            metadata=replace(state.metadata, step=state.metadata.step + 1, is_terminal=True),
        )
        signals = tuple(f.compute(state, action, next_state) for f in self._reward_functions)
        info = {"extracted_answer": extract_answer(action.text)}
        return StepResult(next_state, Rewards(signals), terminated=True, info=info)

    def is_complete(self, text: str) -> bool:
        """True once a closing ``</answer>`` has appeared."""
        return ANSWER_CLOSE in text

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(name={self._spec.name!r}, adapter={self._spec.adapter!r}, "
            f"tasks={len(self)})"
        )
