import pytest

from llenvs.core import (
    Action,
    LineSegmenter,
    RewardType,
    SegmentedEnvironment,
    SegmentedHidden,
    SentenceSegmenter,
    Signal,
    TerminalStateError,
    check_env,
)

RESPONSE = "First, count. There are 2 dogs.\nSo 2 × 4 = 8. <answer>100</answer>"


class CountingStep:
    """A STEP reward that records what it saw."""

    name = "length"
    reward_type = RewardType.STEP

    def __init__(self):
        self.seen = []

    def compute(self, state, action, next_state):
        self.seen.append((state.hidden.accumulated_text, action.text, next_state.hidden))
        return Signal(self.name, self.reward_type, float(len(action.text)))


class BatchedProcess:
    """A PROCESS reward with a batch hook, counting how it was called."""

    name = "batched"
    reward_type = RewardType.PROCESS

    def __init__(self):
        self.single = 0
        self.batches = []

    def compute(self, state, action, next_state):
        self.single += 1
        return Signal(self.name, self.reward_type, next_state.hidden.segment_index / 10)

    def compute_batch(self, steps):
        self.batches.append(len(steps))
        return [
            Signal(self.name, self.reward_type, n.hidden.segment_index / 10) for _, _, n in steps
        ]


def _replay_with(reward, base):
    """A sentence-segmented env with ``reward`` before the base rewards, and RESPONSE replayed."""
    env = SegmentedEnvironment(
        base, SentenceSegmenter(), reward_functions=(reward, *base.reward_functions)
    )
    state, _ = env.reset(options={"task_index": 0})
    return env, env.replay(state, RESPONSE)


@pytest.fixture
def env(leg_counting):
    return SegmentedEnvironment(leg_counting, SentenceSegmenter())


def test_reset_wraps_the_base_state(env, leg_counting):
    state, info = env.reset(options={"task_index": 0})
    base_state, _ = leg_counting.reset(options={"task_index": 0})
    assert state.observation == base_state.observation
    assert state.hidden == SegmentedHidden(base_state.hidden, "", 0, (), None)
    assert info == {"task_index": 0}


def test_live_steps_end_at_the_closing_answer_tag(env):
    state, _ = env.reset(options={"task_index": 0})
    pieces = env.segmenter.pieces(RESPONSE)
    results = []
    for piece in pieces:
        result = env.step(state, Action(piece))
        results.append(result)
        state = result.next_state
    assert [r.terminated for r in results] == [False] * (len(pieces) - 1) + [True]
    assert [r.info["segment_index"] for r in results] == list(range(1, len(pieces) + 1))
    assert state.hidden.accumulated_text == RESPONSE
    assert "".join(state.hidden.segments) == RESPONSE
    assert state.hidden.total_segments is None
    assert results[-1].rewards.as_dict() == {"correctness": 1.0, "format": 1.0}
    assert all(r.rewards.total == 0 for r in results[:-1])


def test_live_transitions_equal_replay(env):
    state, _ = env.reset(options={"task_index": 0})
    replayed = env.replay(state, RESPONSE)
    live_state, live = state, []
    for piece in env.segmenter.pieces(RESPONSE):
        live.append(env.step(live_state, Action(piece)))
        live_state = live[-1].next_state
    assert [r.rewards for r in live] == [r.rewards for r in replayed]
    assert [r.terminated for r in live] == [r.terminated for r in replayed]
    assert [r.next_state.hidden.segments for r in live] == [
        r.next_state.hidden.segments for r in replayed
    ]


def test_a_final_action_or_an_empty_one_ends_the_episode(env):
    state, _ = env.reset(options={"task_index": 0})
    assert env.step(state, Action("No tag yet.", final=True)).terminated
    ended = env.step(state, Action(""))
    assert ended.terminated
    assert ended.rewards.as_dict() == {"correctness": 0.0, "format": 0.0}


def test_replay_of_text_after_the_answer_is_terminal_only_at_the_end(env):
    state, _ = env.reset(options={"task_index": 0})
    results = env.replay(state, "So 100. <answer>100</answer> Hope that helps. Bye.")
    assert [r.terminated for r in results] == [False] * (len(results) - 1) + [True]
    assert results[-1].next_state.hidden.accumulated_text.endswith("Bye.")


def test_replay_of_empty_text_is_one_terminal_step(env):
    state, _ = env.reset(options={"task_index": 0})
    (result,) = env.replay(state, "")
    assert result.terminated and result.rewards.total == 0.0


def test_step_and_replay_refuse_a_terminal_state(env):
    state, _ = env.reset(options={"task_index": 0})
    final = env.replay(state, RESPONSE)[-1].next_state
    with pytest.raises(TerminalStateError, match="finalize"):
        env.step(final, Action("Therefore, x = 42."))
    with pytest.raises(TerminalStateError):
        env.replay(final, "more")


def test_finalize(env):
    state, _ = env.reset(options={"task_index": 0})
    results = env.replay(state, RESPONSE)
    again = env.finalize(results[-1].next_state)
    assert again.rewards == results[-1].rewards
    assert again.next_state == results[-1].next_state
    midway = results[0].next_state
    ended = env.finalize(midway)
    assert ended.terminated
    assert ended.rewards.as_dict() == {"correctness": 0.0, "format": 0.0}
    assert ended.next_state.hidden.accumulated_text == midway.hidden.accumulated_text
    assert env.finalize(ended.next_state).rewards == ended.rewards


def test_reward_routing_by_type(leg_counting):
    step_reward = CountingStep()
    env, results = _replay_with(step_reward, leg_counting)
    pieces = env.segmenter.pieces(RESPONSE)
    # STEP runs on every step (the terminal one included) with segmented states
    assert [r.rewards["length"].reward for r in results] == [float(len(p)) for p in pieces]
    assert all(isinstance(hidden, SegmentedHidden) for _, _, hidden in step_reward.seen)
    assert step_reward.seen[2][0] == "".join(pieces[:2])
    # OUTCOME and FORMAT only on the terminal step, in the order of reward_functions
    assert [r.rewards.names for r in results[:-1]] == [("length",)] * (len(pieces) - 1)
    assert results[-1].rewards.names == ("length", "correctness", "format")


def test_reward_functions_keyword_replaces_the_base_set(leg_counting):
    env = SegmentedEnvironment(leg_counting, SentenceSegmenter(), reward_functions=())
    state, _ = env.reset(options={"task_index": 0})
    assert env.replay(state, RESPONSE)[-1].rewards.total == 0.0
    with pytest.raises(ValueError, match="share a name: format"):
        SegmentedEnvironment(
            leg_counting,
            "sentence",
            reward_functions=(*leg_counting.reward_functions, leg_counting.reward_functions[1]),
        )


def test_replay_uses_the_batch_hook(leg_counting):
    batched = BatchedProcess()
    env, results = _replay_with(batched, leg_counting)
    assert batched.batches == [len(results)] and batched.single == 0
    assert [r.rewards["batched"].reward for r in results] == [
        (n + 1) / 10 for n in range(len(results))
    ]
    assert results[-1].rewards.names == ("batched", "correctness", "format")
    # live steps call compute, and agree with the batch
    state, _ = env.reset(options={"task_index": 0})
    live = env.step(state, Action(env.segmenter.pieces(RESPONSE)[0]))
    assert live.rewards["batched"] == results[0].rewards["batched"]


def test_segmenter_by_spec_and_the_spec(leg_counting):
    env = SegmentedEnvironment(leg_counting, "line:\n")
    assert env.segmenter == LineSegmenter("\n")
    assert env.spec.segmenter == LineSegmenter("\n").spec
    assert env.spec.name == "leg_counting" and len(env) == 100


def test_step_needs_a_segmented_state(env, leg_counting):
    base_state, _ = leg_counting.reset(options={"task_index": 0})
    with pytest.raises(TypeError, match="SegmentedHidden"):
        env.step(base_state, Action("x"))


@pytest.mark.parametrize("spec", ["sentence", "line", "line:\n\n", "pattern", "steps"])
def test_check_env_on_every_segmenter(leg_counting, spec):
    check_env(SegmentedEnvironment(leg_counting, spec))
