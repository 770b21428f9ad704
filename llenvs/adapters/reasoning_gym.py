"""The ``reasoning_gym`` adapter: any reasoning-gym dataset as an environment.

The prompt is the question followed by reasoning-gym's own evaluation instruction (its
``"default"`` prompt, which asks for the answer in ``<answer>`` tags); pass ``instruction=`` to
replace it. Answers are extracted (see ``llenvs.adapters``), stripped, and scored by the
dataset's own ``score_answer``.

Example:
    >>> from llenvs.core import Action
    >>> env = make_environment("leg_counting", size=100, seed=42)
    >>> state, _ = env.reset(options={"task_index": 0})
    >>> env.step(state, Action("<answer>100</answer>")).rewards.as_dict()
    {'correctness': 1.0, 'format': 1.0}

"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import reasoning_gym
from reasoning_gym.factory import DATASETS
from reasoning_gym.utils import SYSTEM_PROMPTS

from llenvs.adapters._answer_rewards import CorrectnessReward, FormatReward
from llenvs.adapters._question_answer import QuestionAnswerEnvironment
from llenvs.adapters._task import Task
from llenvs.core import EnvSpec, RewardFunction
from llenvs.core.errors import UnknownName

__all__ = [
    "DEFAULT_SEED",
    "REASONING_GYM_INSTRUCTION",
    "CorrectnessReward",
    "FormatReward",
    "ReasoningGymEnvironment",
    "dataset_names",
    "make_environment",
]

REASONING_GYM_INSTRUCTION: str = SYSTEM_PROMPTS["default"].strip()
"""reasoning-gym's own evaluation prompt, placed after each question."""


def dataset_names() -> tuple[str, ...]:
    """Every reasoning-gym dataset name, sorted.

    Example:
        >>> "leg_counting" in dataset_names()
        True

    """
    return tuple(sorted(DATASETS))


DEFAULT_SEED = 42
"""The tasks' seed when none is given, so task i is the same question in every process (and
a trace's task can be made again to branch it). ``seed=None`` asks for fresh random tasks."""


class ReasoningGymEnvironment(QuestionAnswerEnvironment):
    """A reasoning-gym dataset as a single-turn environment.

    Tasks depend only on ``size``, ``seed`` (default ``DEFAULT_SEED``, recorded in the spec)
    and the dataset options, so the same arguments give the same questions in every process.

    Example:
        >>> env = ReasoningGymEnvironment("leg_counting", size=2, seed=0)
        >>> len(env), env.task(0).answer.isdigit()
        (2, True)

    """

    def __init__(
        self,
        name: str,
        *,
        size: int = 500,
        seed: int | None = DEFAULT_SEED,
        instruction: str = REASONING_GYM_INSTRUCTION,
        system_prompt: str | None = None,
        reward_functions: Sequence[RewardFunction] | None = None,
        **dataset_options: Any,
    ) -> None:
        if name not in DATASETS:
            raise UnknownName("reasoning_gym dataset", name, DATASETS)
        if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
            raise ValueError(f"size must be a positive int, got {size!r}")
        config: dict[str, Any] = {"size": size, **dataset_options}
        if seed is not None:
            config["seed"] = seed
        try:
            self.dataset = reasoning_gym.create_dataset(name, **config)
        except (TypeError, ValueError, AssertionError) as error:
            raise ValueError(f"reasoning_gym dataset {name!r} refused {config}: {error}") from error
        spec = EnvSpec(name, "reasoning_gym", {"size": size, "seed": seed, **dataset_options})
        super().__init__(
            spec,
            instruction=instruction,
            system_prompt=system_prompt,
            reward_functions=reward_functions,
        )

    def __len__(self) -> int:
        return len(self.dataset)

    def task(self, index: int) -> Task:
        """Task ``index``: the dataset's question, answer and entry."""
        entry = self.dataset[index]
        return Task(index, str(entry["question"]), str(entry["answer"]), entry)

    def score(self, answer: str | None, task: Task) -> float:
        """The dataset's own ``score_answer`` on the stripped answer."""
        return float(self.dataset.score_answer(answer, dict(task.entry)))


def make_environment(name: str, **kwargs: Any) -> ReasoningGymEnvironment:
    """The registry's factory: ``environment_registry.get(name=..., adapter="reasoning_gym")``.

    Example:
        >>> len(make_environment("leg_counting", size=4))
        4

    """
    return ReasoningGymEnvironment(name, **kwargs)
