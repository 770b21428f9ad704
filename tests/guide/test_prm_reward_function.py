"""The guide's "With Process Reward Model" sample, verbatim, and invariant 5's routing."""

from llenvs.core import RewardType, SegmentedEnvironment, SentenceSegmenter, Signal
from tests.helpers import LengthPRM

RESPONSE = "First, count. There are 2 dogs.\nSo 2 × 4 = 8. <answer>8</answer>"


class PRMRewardFunction:
    """Process Reward Model for intermediate step quality."""

    def __init__(self, prm_model):
        self.prm = prm_model

    @property
    def name(self) -> str:
        return "prm"

    @property
    def reward_type(self) -> RewardType:
        return RewardType.PROCESS

    def compute(self, state, action, next_state) -> Signal:
        if not next_state.metadata.is_terminal:
            accumulated = state.hidden.accumulated_text + action.text
            score = self.prm.score(accumulated)
            return Signal(
                name=self.name,
                reward_type=self.reward_type,
                reward=score,
            )
        return Signal(name=self.name, reward_type=self.reward_type, reward=0.0)


def test_guide_prm_sample_keeps_both_sets(leg_counting):
    base_env = leg_counting
    prm = LengthPRM()
    env = SegmentedEnvironment(
        base_env,
        SentenceSegmenter(),
        reward_functions=(PRMRewardFunction(prm), *base_env.reward_functions),
    )
    state, _ = env.reset(options={"task_index": 0})
    results = env.replay(state, RESPONSE)
    pieces = SentenceSegmenter().pieces(RESPONSE)
    prefixes = ["".join(pieces[: n + 1]) for n in range(len(pieces))]
    assert prm.prefixes == prefixes[:-1]  # the terminal step returns 0.0 without scoring
    assert [r.rewards["prm"].reward for r in results] == [len(p) / 100 for p in prefixes[:-1]] + [
        0.0
    ]
    assert [r.rewards.names for r in results] == [("prm",)] * (len(pieces) - 1) + [
        ("prm", "correctness", "format")
    ]
    assert results[-1].rewards.as_dict() == {"prm": 0.0, "correctness": 0.0, "format": 1.0}
