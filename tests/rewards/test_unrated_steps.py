"""Unrated steps end to end: a step the PRM does not rate is None, stored as nothing, shown "–".

A scripted judge gives one malformed verdict; the replayed trace has no PRM entry for that
segment and entries for the others; aggregations skip it; the PRM contract refuses NaN, a
non-number and a miscount; the workbench's segment table shows "–" for it.
"""

import math

import pytest

from llenvs.core import Action, RewardType, SegmentedEnvironment, Transition
from llenvs.core.registry import environment_registry
from llenvs.inference import get_backend
from llenvs.rewards import (
    PRM_REWARD_NAME,
    Aggregation,
    ArithmeticPRM,
    PRMRewardFunction,
    StepJudgement,
    aggregate,
    judge_traces,
    score_traces,
)
from llenvs.rewards.prm import UNRATED_KEY, JudgePRM, with_prm_scores
from llenvs.traces import SegmentRecord, TaskRecord, Trace, trace_from_steps
from llenvs.traces.records import UNRATED_KEY as TRACE_UNRATED_KEY
from llenvs.workbench import aligned_table, compare_segmenters
from llenvs.workbench.browse import segment_table, styled_segments

RESPONSE = "Two dogs have 2 × 4 = 8 legs. I am not sure about the rest. So 8. <answer>8</answer>"
REPLIES = ["Yes", "Hmm, let me think.", "No"]  # the second verdict is malformed: unrated


def judge(*replies: str) -> JudgePRM:
    return JudgePRM(get_backend("scripted", outputs=list(replies)))


def replayed_trace(prm: JudgePRM) -> Trace:
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
    env = SegmentedEnvironment(base, "sentence", reward_functions=(PRMRewardFunction(prm),))
    state, _ = env.reset(options={"task_index": 0})
    steps, before = [], state
    for result in env.replay(state, RESPONSE):
        action = Action(result.next_state.hidden.segments[-1])
        steps.append(Transition(before, action, result))
        before = result.next_state
    return trace_from_steps(steps, TaskRecord.from_state(env.spec, state))


def test_an_unrated_step_has_no_prm_entry_in_the_trace():
    trace = replayed_trace(judge(*REPLIES))
    assert len(trace.segments) == 3
    rated, unrated, last = trace.segments
    assert rated.prm_scores == {PRM_REWARD_NAME: 1.0} and rated.rewards == {PRM_REWARD_NAME: 1.0}
    assert PRM_REWARD_NAME not in unrated.prm_scores
    assert PRM_REWARD_NAME not in unrated.rewards
    assert last.prm_scores == {PRM_REWARD_NAME: 0.0}
    again = Trace.from_dict(trace.to_dict())  # stored as nothing, read back as nothing
    assert [dict(s.prm_scores) for s in again.segments] == [{"prm": 1.0}, {}, {"prm": 0.0}]


def test_the_unrated_signal_is_a_marked_placeholder_that_adds_nothing():
    prm = judge(*REPLIES)
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
    env = SegmentedEnvironment(base, "sentence", reward_functions=(PRMRewardFunction(prm),))
    state, _ = env.reset(options={"task_index": 0})
    signals = [result.rewards[PRM_REWARD_NAME] for result in env.replay(state, RESPONSE)]
    assert [s.metadata.get(UNRATED_KEY, False) for s in signals] == [False, True, False]
    assert signals[1].reward == 0.0 and signals[1].reward_type is RewardType.PROCESS
    assert signals[1].metadata["verdict"] == "unrated"
    assert signals[1].metadata["why"] == "no verdict"
    assert UNRATED_KEY == TRACE_UNRATED_KEY  # the reward function and the trace writer agree


def test_the_segment_table_shows_a_dash_for_the_unrated_step():
    trace = replayed_trace(judge(*REPLIES))
    table = segment_table(trace)
    scores = table["PRM"].tolist()
    assert scores[0] == 1.0 and math.isnan(scores[1]) and scores[2] == 0.0
    shown = styled_segments(table, 1).data["PRM"].tolist()
    assert shown == ["1.000", "–", "0.000"]


def test_trace_scoring_stores_nothing_for_an_unrated_segment():
    text = ["2 + 2 = 4. ", "Hmm. ", "So 4."]
    segments, start = [], 0
    for index, piece in enumerate(text):
        old = {PRM_REWARD_NAME: 0.5}  # an earlier PRM's score under the same name is dropped
        segments.append(
            SegmentRecord(index, start, start + len(piece), piece, rewards=old, prm_scores=old)
        )
        start += len(piece)
    trace = Trace(
        task=TaskRecord("e", "a", {}, 0, "2 + 2?"), response="".join(text), segments=tuple(segments)
    )
    scored = with_prm_scores(trace, judge("Yes", "I cannot say.", "No"), "judge")
    assert [dict(s.prm_scores) for s in scored.segments] == [{"prm": 1.0}, {}, {"prm": 0.0}]
    assert [dict(s.rewards) for s in scored.segments] == [{"prm": 1.0}, {}, {"prm": 0.0}]


def test_the_segmenter_comparison_shows_a_dash_for_an_unrated_piece():
    text = "2 + 2 = 4. Hmm."
    [run] = compare_segmenters(text, "2 + 2?", ["sentence"], prm=judge("Yes", "Perhaps."))
    assert run.scores == (1.0, None)
    assert aligned_table(text, [run])["sentence"].tolist() == ["▶ 0 (1.00)", "▶ 1 (–)"]


def test_aggregations_skip_unrated_steps():
    scores = [0.9, None, 0.5, None]
    assert aggregate(scores, Aggregation.MIN) == 0.5
    assert aggregate(scores, Aggregation.LAST) == 0.5  # the last rated step
    assert aggregate(scores, Aggregation.PRODUCT) == pytest.approx(0.45)
    assert aggregate(scores, Aggregation.MEAN) == pytest.approx(0.7)
    assert all(aggregate([None, None], how) is None for how in Aggregation)
    with pytest.raises(ValueError, match="no step scores to aggregate"):
        aggregate([], Aggregation.MIN)


class Returns:
    """A PRM that returns the given scores, whatever the steps."""

    def __init__(self, *scores):
        self.scores = list(scores)

    def score_steps(self, question, steps):
        return list(self.scores)


class Judges(Returns):
    """The same, as judgements."""

    def judge_steps(self, question, steps):
        return [StepJudgement(s) for s in self.scores]


def test_the_prm_contract_keeps_none_and_refuses_nan_non_numbers_and_miscounts():
    assert score_traces(Returns(1, None, 0.25), [("q", ["a", "b", "c"])]) == [[1.0, None, 0.25]]
    assert isinstance(score_traces(Returns(1), [("q", ["a"])])[0][0], float)
    [[first, second]] = judge_traces(Returns(None, 0.5), [("q", ["a", "b"])])
    assert (first.score, first.rated, second.score) == (None, False, 0.5)
    with pytest.raises(ValueError, match="Returns returned NaN for step 1: an unrated step"):
        score_traces(Returns(0.5, math.nan), [("q", ["a", "b"])])
    with pytest.raises(ValueError, match="Judges returned NaN for step 0"):
        judge_traces(Judges(math.nan), [("q", ["a"])])
    with pytest.raises(TypeError, match=r"Returns returned 'high' for step 0: a score must be"):
        score_traces(Returns("high"), [("q", ["a"])])
    with pytest.raises(TypeError, match="Returns returned True for step 0"):
        score_traces(Returns(True), [("q", ["a"])])
    with pytest.raises(ValueError, match="Returns returned 1 scores for 2 steps"):
        score_traces(Returns(None), [("q", ["a", "b"])])
    with pytest.raises(TypeError, match="score must be a number or None"):
        StepJudgement("high")


def test_the_arithmetic_prm_stays_neutral_not_unrated():
    assert ArithmeticPRM().score_steps("q", ["2 + 2 = 5.", "So 5."]) == [0.0, 0.5]
    reward = PRMRewardFunction(ArithmeticPRM())
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
    env = SegmentedEnvironment(base, "sentence", reward_functions=(reward,))
    state, _ = env.reset(options={"task_index": 0})
    signals = [r.rewards[PRM_REWARD_NAME] for r in env.replay(state, "Hmm. So 8.")]
    assert [s.reward for s in signals] == [0.5, 0.5]
    assert not any(UNRATED_KEY in s.metadata for s in signals)
