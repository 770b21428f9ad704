from llenvs.core import SamplingParams, SegmentedEnvironment
from llenvs.evaluation import (
    COMPLETE,
    BoundaryContinuationStrategy,
    SegmentedTrajectoryRunner,
    TokenContinuationStrategy,
)
from llenvs.inference import get_backend
from llenvs.inference._backends.scripted import TOKEN_PATTERN
from tests.evaluation.conftest import (
    SCRIPT,
    FakeTokenSegmenter,
    PseudoTokenizer,
    ScriptedWithTokenizer,
)


def test_token_strategy_is_chosen_when_the_backend_shares_the_tokenizer(leg_counting):
    tokenizer = PseudoTokenizer()
    env = SegmentedEnvironment(leg_counting, FakeTokenSegmenter(tokenizer, 4))
    same = SegmentedTrajectoryRunner(env, ScriptedWithTokenizer([SCRIPT], tokenizer))
    other = SegmentedTrajectoryRunner(env, ScriptedWithTokenizer([SCRIPT], PseudoTokenizer()))
    plain = SegmentedTrajectoryRunner(env, get_backend("scripted", outputs=[SCRIPT]))
    assert isinstance(same._new_strategy(), TokenContinuationStrategy)
    assert isinstance(other._new_strategy(), BoundaryContinuationStrategy)
    assert isinstance(plain._new_strategy(), BoundaryContinuationStrategy)


def test_each_call_is_one_segment_of_token_size(leg_counting):
    tokenizer = PseudoTokenizer()
    env = SegmentedEnvironment(leg_counting, FakeTokenSegmenter(tokenizer, 4))
    backend = ScriptedWithTokenizer([SCRIPT], tokenizer)
    runner = SegmentedTrajectoryRunner(env, backend, SamplingParams(max_tokens=2048))
    result = runner.run_trajectory(task_index=0)
    assert all(r.max_tokens == 4 and r.stop_at is None for r in backend.requests)
    assert [len(t.info["token_ids"]) for t in result.trajectory][:-1] == [4] * (
        len(result.trajectory) - 1
    )
    assert result.text == SCRIPT and result.success
    state, _ = env.reset(options={"task_index": 0})
    replayed = env.replay(state, result.text)
    assert [t.action.text for t in result.trajectory] == env.segmenter.pieces(result.text)
    assert [t.result.terminated for t in result.trajectory] == [r.terminated for r in replayed]


def test_token_budget_caps_the_last_call(leg_counting):
    tokenizer = PseudoTokenizer()
    env = SegmentedEnvironment(leg_counting, FakeTokenSegmenter(tokenizer, 4))
    backend = ScriptedWithTokenizer([SCRIPT], tokenizer)
    result = SegmentedTrajectoryRunner(env, backend, SamplingParams(max_tokens=10)).run_trajectory(
        0
    )
    assert [r.max_tokens for r in backend.requests] == [4, 4, 2]
    assert result.text == "".join(TOKEN_PATTERN.findall(SCRIPT)[:10])
    assert result.trajectory[-1].result.terminated


def test_complete_under_the_token_strategy(leg_counting):
    tokenizer = PseudoTokenizer()
    env = SegmentedEnvironment(leg_counting, FakeTokenSegmenter(tokenizer, 4))
    backend = ScriptedWithTokenizer([SCRIPT], tokenizer)
    runner = SegmentedTrajectoryRunner(env, backend, SamplingParams())
    result = runner.run_trajectory(0, step_callback=lambda r: COMPLETE)
    assert len(backend.requests) == 2
    assert result.text == SCRIPT and result.success
    assert all(t.info["one_shot"] for t in result.trajectory[1:])
