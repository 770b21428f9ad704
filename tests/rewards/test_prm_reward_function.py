"""PRMRewardFunction in a SegmentedEnvironment: routing, the batch hook, the guide's duck type."""

import pytest

from llenvs.core import (
    Action,
    LineSegmenter,
    RewardType,
    SegmentedEnvironment,
    SentenceSegmenter,
    check_env,
)
from llenvs.core.segmenters import default_segmenter
from llenvs.rewards import NEUTRAL_SCORE, ArithmeticPRM, PRMRewardFunction
from tests.helpers import LengthPRM

RESPONSE = "First, count. There are 2 dogs.\nSo 2 × 4 = 8. Then 8 + 1 = 10. <answer>100</answer>"


class CountingPRM:
    """A PRM that records its calls and scores each step by its number."""

    def __init__(self):
        self.calls = []

    def score_steps(self, question, steps):
        self.calls.append((question, list(steps)))
        return [min(1.0, (i + 1) / 10) for i in range(len(steps))]


def _env(base, prm, segmenter=None):
    reward = PRMRewardFunction(prm)
    env = SegmentedEnvironment(
        base, segmenter or SentenceSegmenter(), reward_functions=(reward, *base.reward_functions)
    )
    state, _ = env.reset(options={"task_index": 0})
    return env, state


def _stepped(env, state, pieces):
    """The same pieces stepped one by one (compute, not compute_batch)."""
    results = []
    for i, piece in enumerate(pieces):
        result = env.step(state, Action(piece, final=i == len(pieces) - 1))
        results.append(result)
        state = result.next_state
    return results


def test_replay_scores_the_whole_trace_in_one_prm_call(leg_counting):
    prm = CountingPRM()
    env, state = _env(leg_counting, prm)
    results = env.replay(state, RESPONSE)
    pieces = SentenceSegmenter().pieces(RESPONSE)
    assert len(prm.calls) == 1
    question = leg_counting.task(0).question
    assert prm.calls == [(question, pieces)]
    assert [r.rewards["prm"].reward for r in results] == [(i + 1) / 10 for i in range(len(pieces))]
    assert [r.rewards["prm"].metadata["step"] for r in results] == list(range(len(pieces)))
    # invariant 5: the base rewards still run once, on the terminal step
    assert results[-1].rewards.names == ("prm", "correctness", "format")
    assert all(r.rewards.names == ("prm",) for r in results[:-1])
    assert results[-1].rewards["prm"].reward_type is RewardType.PROCESS


def test_batch_hook_equals_step_by_step(leg_counting):
    pieces = SentenceSegmenter().pieces(RESPONSE)
    env, state = _env(leg_counting, ArithmeticPRM())
    replayed = env.replay(state, RESPONSE)
    stepped = _stepped(env, state, pieces)
    assert [r.rewards["prm"] for r in replayed] == [r.rewards["prm"] for r in stepped]
    assert [r.rewards["prm"].reward for r in replayed] == [0.5, 0.5, 1.0, 0.0]  # <answer> stays
    assert replayed[3].rewards["prm"].metadata["failed"][0]["equation"] == "8 + 1 = 10"


def test_the_guide_duck_type_works_verbatim(leg_counting):
    prm = LengthPRM()
    base_env = leg_counting
    env = SegmentedEnvironment(
        base_env,
        SentenceSegmenter(),
        reward_functions=(PRMRewardFunction(prm), *base_env.reward_functions),
    )
    state, _ = env.reset(options={"task_index": 0})
    results = env.replay(state, RESPONSE)
    pieces = SentenceSegmenter().pieces(RESPONSE)
    prefixes = ["".join(pieces[: n + 1]) for n in range(len(pieces))]
    assert prm.prefixes == prefixes  # one score(text) per step, on the accumulated text
    assert [r.rewards["prm"].reward for r in results] == [len(p) / 100 for p in prefixes]


def test_blank_steps_are_neutral_and_their_text_joins_the_next_step(leg_counting):
    prm = LengthPRM()
    env, state = _env(leg_counting, prm)
    pieces = ["Two dogs.", "\n\n", "So 2 × 4 = 8.", "   ", "<answer>8</answer>"]
    stepped = _stepped(env, state, pieces)
    rewards = [r.rewards["prm"] for r in stepped]
    assert [r.metadata.get("blank", False) for r in rewards] == [False, True, False, True, False]
    assert rewards[1].reward == rewards[3].reward == NEUTRAL_SCORE
    assert rewards[2].reward == len("Two dogs.\n\nSo 2 × 4 = 8.") / 100
    assert rewards[4].reward == len("".join(pieces)) / 100
    # the batch hook gives the same signals
    triples = []
    for result, piece in zip(stepped, pieces, strict=True):
        before = state
        state = result.next_state
        triples.append((before, Action(piece), state))
    assert PRMRewardFunction(LengthPRM()).compute_batch(triples) == rewards


def test_finalize_empty_step_is_blank(leg_counting):
    env, state = _env(leg_counting, ArithmeticPRM())
    state = env.step(state, Action("2 + 2 = 4. ")).next_state
    result = env.finalize(state)
    assert result.terminated
    assert result.rewards["prm"].reward == NEUTRAL_SCORE
    assert result.rewards["prm"].metadata["blank"] is True


def test_a_batch_of_two_traces_is_one_prm_call(leg_counting):
    prm = CountingPRM()
    env, state = _env(leg_counting, prm, LineSegmenter())
    first = env.replay(state, "a\nb\n")
    second = env.replay(state, "c\nd\ne\n")
    prm.calls.clear()
    triples = []
    for results in (first, second):
        before = state
        for r in results:
            triples.append((before, Action(r.next_state.hidden.segments[-1]), r.next_state))
            before = r.next_state
    signals = PRMRewardFunction(prm).compute_batch(triples)
    assert [s.reward for s in signals] == [0.1, 0.2, 0.1, 0.2, 0.3]
    assert len(prm.calls) == 2  # CountingPRM has no batch hook: one score_steps per trace


def test_the_segmented_environment_passes_check_env(leg_counting):
    env, _ = _env(leg_counting, ArithmeticPRM(), default_segmenter())
    check_env(env)


def test_bad_arguments_fail_early():
    with pytest.raises(TypeError, match=r"score_steps\(question, steps\).*score\(text\)"):
        PRMRewardFunction(object())
    with pytest.raises(ValueError, match="name must be a non-empty string"):
        PRMRewardFunction(ArithmeticPRM(), name="")


def test_it_needs_segmented_states(leg_counting):
    state, _ = leg_counting.reset(options={"task_index": 0})
    with pytest.raises(TypeError, match=r"PRMRewardFunction .* needs a segmented state"):
        PRMRewardFunction(ArithmeticPRM()).compute(state, Action("1 + 1 = 2"), state)


def test_the_replayed_real_response_flags_the_wrong_sums(leg_counting, real_responses):
    env, state = _env(leg_counting, ArithmeticPRM(), default_segmenter())
    results = env.replay(state, real_responses[10]["response"])
    low = [r for r in results if r.rewards["prm"].reward < NEUTRAL_SCORE]
    assert [r.rewards["prm"].metadata["failed"][0]["right"] for r in low] == ["6328", "17186"]
