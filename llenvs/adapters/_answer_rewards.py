"""The default rewards of question-answer environments: ``correctness`` and ``format``.

Both judge the whole response, once, on the terminal step (OUTCOME and FORMAT types).

Example:
    >>> from llenvs.core import Action, Observation, State, StateMetadata
    >>> from llenvs.adapters._task import Task
    >>> s = State(Observation("q"), Task(0, "2 + 2?", "4"), StateMetadata(0))
    >>> exact = CorrectnessReward(lambda answer, task: float(answer == task.answer))
    >>> exact.compute(s, Action("<answer> 4 </answer>"), s).reward
    1.0
    >>> FormatReward().compute(s, Action("4"), s).reward
    0.0

"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from llenvs.adapters._answers import extract_answer, has_closed_answer
from llenvs.adapters._task import Task
from llenvs.core import Action, RewardType, Signal, State

__all__ = ["AnswerScorer", "CorrectnessReward", "FormatReward"]

AnswerScorer = Callable[[str | None, Task], float]
"""Scores an extracted answer (None when the response gave none) against a task."""


class CorrectnessReward:
    """OUTCOME: the extracted final answer scored by the dataset's own scorer.

    Example:
        >>> CorrectnessReward(lambda a, t: 0.0).reward_type
        <RewardType.OUTCOME: 'outcome'>

    """

    name = "correctness"
    reward_type = RewardType.OUTCOME

    def __init__(self, scorer: AnswerScorer) -> None:
        self.scorer = scorer

    def compute(self, state: State[Any], action: Action, next_state: State[Any]) -> Signal:
        """Extract the answer from the whole response and score it."""
        task = state.hidden
        if not isinstance(task, Task):
            raise TypeError(
                f"correctness needs a Task hidden state, got {type(task).__name__}: OUTCOME "
                "rewards run on the base environment's state"
            )
        answer = extract_answer(action.text)
        score = float(self.scorer(answer, task))
        return Signal(
            self.name,
            self.reward_type,
            score,
            {"extracted_answer": answer, "expected_answer": task.answer},
        )


class FormatReward:
    """FORMAT: 1.0 when the response closes a non-empty ``<answer>…</answer>``, else 0.0.

    Example:
        >>> FormatReward().name
        'format'

    """

    name = "format"
    reward_type = RewardType.FORMAT

    def compute(self, state: State[Any], action: Action, next_state: State[Any]) -> Signal:
        """Check the whole response for a closed answer tag."""
        ok = has_closed_answer(action.text)
        reason = "closed <answer> tag" if ok else "no closed, non-empty <answer>…</answer>"
        return Signal(self.name, self.reward_type, 1.0 if ok else 0.0, {"reason": reason})
