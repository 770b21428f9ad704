r"""An environment made from one trace's own task record: its prompt and expected answer.

For a trace whose environment cannot be made again through the registry (an imported
reasoning-gym log of a hosted model, ProcessBench/PRM800K steps, chat JSONL, or a trace of
another environment's options), a branch still needs the same question: this environment asks
exactly the recorded prompt (already the whole user message: no instruction is added), with the
recorded system prompt, and scores the answer with math-verify against the expected answer
(``answers_match``). Without an expected answer it has no outcome reward, only ``format``.

Example:
    >>> from llenvs.core import Action
    >>> env = TaskRecordEnvironment("reasoning_gym_log", 3, "What is 2 + 2?", expected="4")
    >>> state, _ = env.reset(options={"task_index": 3})
    >>> state.observation.prompt
    'What is 2 + 2?'
    >>> env.step(state, Action("<answer>4.0</answer>")).rewards.total
    2.0

"""

from __future__ import annotations

from llenvs.adapters._answer_rewards import FormatReward
from llenvs.adapters._question_answer import QuestionAnswerEnvironment
from llenvs.adapters._task import Task
from llenvs.adapters.huggingface import answers_match
from llenvs.core import EnvSpec
from llenvs.core.errors import TaskIndexError

__all__ = ["TASK_RECORD_ADAPTER", "TaskRecordEnvironment"]

TASK_RECORD_ADAPTER = "task_record"
"""The adapter name a branch made in this environment records."""


class TaskRecordEnvironment(QuestionAnswerEnvironment):
    """One recorded task as a single-turn environment (see the module docstring).

    Arguments:
        name: the recorded environment's name (kept in the spec).
        task_index: the recorded task index: the one index this environment has a task for.
        prompt: the whole recorded user message.
        expected: the expected answer, or None (then no outcome reward).
        system_prompt: the recorded system prompt, or None.

    Example:
        >>> env = TaskRecordEnvironment("chat", 0, "Hi?")
        >>> [f.name for f in env.reward_functions]
        ['format']

    """

    def __init__(
        self,
        name: str,
        task_index: int,
        prompt: str,
        *,
        expected: str | None = None,
        system_prompt: str | None = None,
    ) -> None:
        if task_index < 0:
            raise ValueError(f"task_index must be >= 0, got {task_index}")
        spec = EnvSpec(name, TASK_RECORD_ADAPTER, {"expected_answer": expected})
        super().__init__(
            spec,
            instruction="",
            system_prompt=system_prompt,
            reward_functions=None if expected is not None else (FormatReward(),),
        )
        self.task_index = task_index
        self._task = Task(task_index, prompt, expected)

    def __len__(self) -> int:
        return self.task_index + 1

    def task(self, index: int) -> Task:
        """The recorded task (the only one: other indices are refused)."""
        if index != self.task_index:
            raise TaskIndexError(index, len(self))
        return self._task

    def prompt(self, task: Task) -> str:
        """The recorded prompt, exactly (it already holds any answer-format instruction)."""
        return task.question

    def score(self, answer: str | None, task: Task) -> float:
        """1.0 when the answer matches the expected one (``answers_match``), else 0.0."""
        if answer is None or task.answer is None:
            return 0.0
        return float(answers_match(answer, task.answer))
