import pytest

from llenvs.core import Rewards, RewardType, Signal, UnknownName


def test_rewards_total_and_lookups():
    rewards = Rewards(
        (
            Signal("prm", RewardType.PROCESS, 0.25),
            Signal("correctness", RewardType.OUTCOME, 1.0),
            Signal("format", RewardType.FORMAT, 1.0),
        )
    )
    assert rewards.total == 2.25
    assert rewards["prm"].reward == 0.25
    assert rewards.get("nope") is None
    assert "format" in rewards and "nope" not in rewards
    assert [s.name for s in rewards.of_type(RewardType.OUTCOME)] == ["correctness"]
    assert rewards.total_of(RewardType.FORMAT) == 1.0
    assert rewards.as_dict() == {"prm": 0.25, "correctness": 1.0, "format": 1.0}
    assert rewards.names == ("prm", "correctness", "format")
    assert len(rewards) == 3


def test_empty_rewards_total_is_zero():
    assert Rewards().total == 0
    assert isinstance(Rewards().total, float)


def test_unknown_reward_name_lists_the_names():
    rewards = Rewards((Signal("format", RewardType.FORMAT, 1.0),))
    with pytest.raises(UnknownName, match="choose one of: format"):
        rewards["correctness"]


def test_duplicate_signal_names_are_refused():
    with pytest.raises(ValueError, match="share a name: a"):
        Rewards((Signal("a", RewardType.STEP, 1.0), Signal("a", RewardType.STEP, 0.0)))


@pytest.mark.parametrize("bad", [float("nan"), "1.0", True])
def test_signal_rejects_non_numbers(bad):
    with pytest.raises((TypeError, ValueError)):
        Signal("x", RewardType.STEP, bad)


def test_signal_rejects_a_string_type():
    with pytest.raises(TypeError, match="RewardType"):
        Signal("x", "outcome", 1.0)  # type: ignore[arg-type]


def test_per_step_types():
    assert {t for t in RewardType if t.per_step} == {RewardType.STEP, RewardType.PROCESS}
