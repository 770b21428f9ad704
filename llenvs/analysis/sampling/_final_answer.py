"""The answer an environment read from a finished episode.

The environment says what it parsed: its terminal step's ``info["extracted_answer"]`` (the
question-answer adapters put it there), else the ``extracted_answer`` of an OUTCOME signal's
metadata. No parsing happens here, so the answer is the environment's own reading.

Example:
    >>> from llenvs.evaluation import SegmentedTrajectoryRunner
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
    >>> runner = SegmentedTrajectoryRunner(SegmentedEnvironment(base, "sentence"),
    ...                                    get_backend("scripted", outputs=["So. <answer> 8</answer>"]))
    >>> final_answer(runner.run_trajectory(0))
    '8'

"""  # noqa: E501

from __future__ import annotations

from typing import Any

from llenvs.core import RewardType, StepResult
from llenvs.evaluation.episodes import TrajectoryResult

__all__ = ["final_answer", "step_answer"]


def final_answer(result: TrajectoryResult) -> str | None:
    """The answer the environment read from ``result``'s response; None when it read none.

    Example:
        >>> final_answer(TrajectoryResult(Trajectory(), success=False)) is None
        True

    """
    transitions = list(result.trajectory)
    return step_answer(transitions[-1].result) if transitions else None


def step_answer(result: StepResult[Any]) -> str | None:
    """The answer the environment read on a (terminal) step; None when it read none.

    Example:
        >>> from llenvs.core import Observation, State, StateMetadata
        >>> from llenvs.core._signal import Rewards
        >>> s = State(Observation("q"), None, StateMetadata(0))
        >>> step_answer(StepResult(s, Rewards(()), info={"extracted_answer": "4"}))
        '4'

    """
    answer = result.info.get("extracted_answer")
    if isinstance(answer, str):
        return answer
    for signal in result.rewards.of_type(RewardType.OUTCOME):
        found = signal.metadata.get("extracted_answer")
        if isinstance(found, str):
            return found
    return None
