import dataclasses

import pytest

from llenvs.core import (
    Action,
    Observation,
    Rewards,
    RewardType,
    Signal,
    State,
    StateMetadata,
    StepResult,
    Trajectory,
    Transition,
)


def _transition(text: str, reward: float, terminal: bool) -> Transition:
    state = State(Observation("q"), None, StateMetadata(0))
    result = StepResult(
        dataclasses.replace(state, metadata=StateMetadata(0, 1, is_terminal=terminal)),
        Rewards((Signal("r", RewardType.STEP, reward),)),
        terminated=terminal,
    )
    return Transition(state, Action(text), result)


def test_trajectory_joins_text_and_sums_rewards():
    trajectory = Trajectory().appended(_transition("a ", 0.5, False))
    trajectory = trajectory.appended(_transition("b", 1.0, True))
    assert len(trajectory) == 2
    assert trajectory.text == "a b"
    assert trajectory.total_reward == 1.5
    assert trajectory.is_done
    assert [t.action.text for t in trajectory] == ["a ", "b"]
    assert trajectory[1].next_state.metadata.is_terminal


def test_values_are_frozen():
    action = Action("x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        action.text = "y"  # type: ignore[misc]
    assert dataclasses.replace(action, text="y").text == "y"


def test_step_result_done():
    state = State(Observation("q"), None, StateMetadata(0))
    assert StepResult(state, Rewards(), truncated=True).done
    assert not StepResult(state, Rewards()).done
