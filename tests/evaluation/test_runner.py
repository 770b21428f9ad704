import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llenvs.core import (
    DEFAULT_MAX_TOKENS,
    FinishReason,
    Generation,
    LineSegmenter,
    Message,
    Prompt,
    SamplingParams,
    SegmentedEnvironment,
    SentenceSegmenter,
    TerminalStateError,
    segmenter_from_spec,
)
from llenvs.core.segmenters import FirstCut
from llenvs.evaluation import (
    COMPLETE,
    BoundaryContinuationStrategy,
    ForceAction,
    SegmentedTrajectoryRunner,
)
from llenvs.inference import get_backend
from llenvs.inference._backends.scripted import TOKEN_PATTERN
from tests.evaluation.conftest import SCRIPT, SCRIPT_PIECES, ChunkBackend


def _runner(env, *outputs, **params):
    backend = get_backend("scripted", outputs=list(outputs))
    return SegmentedTrajectoryRunner(env, backend, SamplingParams(**params)), backend


def _texts(result):
    return [t.action.text for t in result.trajectory]


def _same_as_replay(env, result):
    """The live transitions equal those of replaying the same text (invariant: live = replay)."""
    state, _ = env.reset(options={"task_index": result.metadata["task_index"]})
    replayed = env.replay(state, result.text)
    live = list(result.trajectory)
    assert [t.action.text for t in live] == [r.next_state.hidden.segments[-1] for r in replayed]
    assert [t.result.terminated for t in live] == [r.terminated for r in replayed]
    assert [t.rewards.as_dict() for t in live] == [r.rewards.as_dict() for r in replayed]


def test_no_callback_steps_every_segment_and_succeeds(env):
    runner, backend = _runner(env, SCRIPT)
    result = runner.run_trajectory(0)
    assert _texts(result) == SCRIPT_PIECES
    assert result.success
    assert [t.result.terminated for t in result.trajectory] == [False] * 6 + [True]
    assert result.trajectory[-1].rewards.total == 2.0
    assert [t.info["segment_index"] for t in result.trajectory] == list(range(1, 8))
    assert result.metadata["prefix_steps"] == 0
    assert result.metadata["finish_reason"] == FinishReason.STOP.value == "stop"
    assert result.metadata["calls"] == len(backend.requests) == 7
    assert result.metadata["generated_tokens"] == len(TOKEN_PATTERN.findall(SCRIPT))
    assert result.messages[-1] == Message("assistant", SCRIPT)
    _same_as_replay(env, result)


def test_a_wrong_answer_is_no_success(env):
    result = _runner(env, "So 8. <answer>8</answer>")[0].run_trajectory(0)
    assert not result.success
    assert result.trajectory[-1].rewards.total == 1.0  # format only


def test_overshoot_is_kept_and_the_script_read_once(env):
    runner, backend = _runner(env, SCRIPT)
    runner.run_trajectory(0)
    text = ""
    for request in backend.requests:
        assert request.prompt.continuation.startswith(text)
        text = request.prompt.continuation
    # Every call but the first continues past a boundary's overshoot (a word already generated).
    assert backend.requests[1].prompt.continuation == "First, count the animals. There"


def test_environment_stop_sequences_are_added(env):
    runner, backend = _runner(env, SCRIPT + " Then more text.", stop=("STOP",))
    assert runner.sampling_params.stop == ("STOP", "</answer>")
    result = runner.run_trajectory(0)
    assert result.text == SCRIPT
    assert all(r.params.stop == ("STOP", "</answer>") for r in backend.requests)


def test_continuation_token_ids_are_passed_back(env):
    runner, backend = _runner(env, SCRIPT)
    runner.run_trajectory(0)
    assert backend.requests[0].prompt.continuation_token_ids == ()
    # Each request's ids are exactly the tokens of its continuation, in order.
    for request in backend.requests:
        tokens = TOKEN_PATTERN.findall(request.prompt.continuation)
        assert request.prompt.continuation_token_ids == tuple(
            backend._vocabulary[t] for t in tokens
        )


def test_token_ids_and_logprobs_recorded_per_generated_segment(env):
    result = _runner(env, SCRIPT, logprobs=True)[0].run_trajectory(0)
    all_ids = [i for t in result.trajectory for i in t.info["token_ids"]]
    assert len(all_ids) == len(TOKEN_PATTERN.findall(SCRIPT))
    for t in result.trajectory:
        assert t.info["logprobs"] == (0.0,) * len(t.info["token_ids"])
    plain = _runner(env, SCRIPT)[0].run_trajectory(0)
    assert all("logprobs" not in t.info for t in plain.trajectory)


@pytest.mark.parametrize("spec", ["sentence", "line", "steps", "line:\n\n", "pattern"])
@pytest.mark.parametrize(
    "script",
    [
        SCRIPT,
        "",
        "   ",
        "No answer at all, no end mark",
        "Step 1: count.\nStep 2: 2 dogs.\n\nTherefore, 8. <answer>8</answer>",
        "1. a\n2. b\n\n\nFirst, x. <answer>100</answer> ignored",
    ],
)
def test_live_equals_replay(leg_counting, spec, script):
    env = SegmentedEnvironment(leg_counting, spec)
    result = _runner(env, script)[0].run_trajectory(0)
    _same_as_replay(env, result)
    assert result.trajectory.is_done
    assert "".join(_texts(result)) == result.trajectory[-1].next_state.hidden.accumulated_text


SCRIPT_WORDS = st.lists(
    st.sampled_from(["One", " two", ".", "\n", "\n\n", " ", "Then,", " x = 3.14", "!", "?"]),
    max_size=25,
)
"""Scripts built from words that exercise sentence and line boundaries."""
LIVE_SPECS = st.sampled_from(["sentence", "line", "steps"])


@settings(max_examples=40, deadline=None)
@given(
    SCRIPT_WORDS,
    LIVE_SPECS,
)
def test_live_equals_replay_property(leg_counting, words, spec):
    env = SegmentedEnvironment(leg_counting, spec)
    result = _runner(env, "".join(words))[0].run_trajectory(0)
    _same_as_replay(env, result)


def test_token_budget_ends_the_episode_with_the_text_so_far(env):
    runner, backend = _runner(env, SCRIPT, max_tokens=12)
    result = runner.run_trajectory(0)
    assert result.metadata["generated_tokens"] == 12
    assert result.metadata["budget_exhausted"]
    assert result.text == "".join(TOKEN_PATTERN.findall(SCRIPT)[:12])
    assert result.trajectory[-1].result.terminated
    assert result.trajectory[-1].action.final
    assert not result.success
    assert sum(r.max_tokens for r in backend.requests[-1:]) <= 12
    assert [r.max_tokens for r in backend.requests] == [12, 5]
    _same_as_replay(env, result)


def test_budget_spent_exactly_at_a_boundary(env):
    # "First, count the animals. There" is 7 tokens: the boundary is found with the last one.
    result = _runner(env, SCRIPT, max_tokens=7)[0].run_trajectory(0)
    assert _texts(result) == ["First, count the animals. ", "There"]
    assert result.trajectory[-1].result.terminated


def test_max_steps_truncates(env):
    result = _runner(env, SCRIPT)[0].run_trajectory(0, max_steps=3)
    assert len(result.trajectory) == 3
    last = result.trajectory[-1].result
    assert last.truncated and not last.terminated
    assert last.next_state.metadata.is_truncated
    assert result.metadata["truncated"] and not result.success
    with pytest.raises(ValueError, match="max_steps must be > 0"):
        _runner(env, SCRIPT)[0].run_trajectory(0, max_steps=0)


def test_max_steps_reached_by_the_terminal_step_is_no_truncation(env):
    result = _runner(env, SCRIPT)[0].run_trajectory(0, max_steps=7)
    assert not result.metadata["truncated"] and result.success


def test_feedback_opens_a_new_assistant_turn(env):
    runner, backend = _runner(env, SCRIPT, "Recount: 100. <answer>100</answer>")

    def feedback(step_result):
        return "Check the deer." if step_result.info["segment_index"] == 2 else None

    result = runner.run_trajectory(0, step_callback=feedback)
    question = env.reset(options={"task_index": 0})[0].observation.prompt
    first_turn = "".join(SCRIPT_PIECES[:2])
    assert result.messages == (
        Message("user", question),
        Message("assistant", first_turn),
        Message("user", "Check the deer."),
        Message("assistant", "Recount: 100. <answer>100</answer>"),
    )
    assert _texts(result) == [*SCRIPT_PIECES[:2], "Recount: 100. <answer>100</answer>"]
    assert result.trajectory[-1].next_state.hidden.accumulated_text == result.text
    assert result.success
    after = backend.requests[2]
    assert after.prompt.messages[-1] == Message("user", "Check the deer.")
    assert (after.prompt.continuation, after.prompt.continuation_token_ids) == ("", ())


def test_force_action_is_one_segment_and_drops_the_buffer(env):
    runner, backend = _runner(env, SCRIPT)
    forced = "Injected. Two sentences. "

    def force(step_result):
        return ForceAction(forced) if step_result.info["segment_index"] == 1 else None

    result = runner.run_trajectory(0, step_callback=force)
    assert result.trajectory[1].action.text == forced
    assert result.trajectory[1].info["forced"]
    assert "token_ids" not in result.trajectory[1].info
    request = backend.requests[1]
    assert request.prompt.continuation == SCRIPT_PIECES[0] + forced  # the overshoot is gone
    assert request.prompt.continuation_token_ids is None  # the text is no longer all generated
    assert result.trajectory.is_done


def test_complete_finishes_in_one_call(env):
    runner, backend = _runner(env, SCRIPT)
    seen = []

    def probe(step_result):
        seen.append(step_result.info["segment_index"])
        return COMPLETE if step_result.info["segment_index"] >= 2 else None

    result = runner.run_trajectory(0, step_callback=probe)
    assert seen == [1, 2]
    assert _texts(result) == SCRIPT_PIECES
    assert [bool(t.info.get("one_shot")) for t in result.trajectory] == [False] * 2 + [True] * 5
    assert len(backend.requests) == 3
    last = backend.requests[-1]
    assert last.stop_at is None
    assert last.max_tokens == DEFAULT_MAX_TOKENS - sum(
        len(t.info["token_ids"]) for t in result.trajectory[:2]
    )
    assert last.prompt.continuation == "".join(SCRIPT_PIECES[:2]) + "Sea"  # from the buffer
    _same_as_replay(env, result)
    assert result.success


def test_complete_recuts_segments_generated_but_not_stepped(env):
    backend = ChunkBackend(SCRIPT, size=12)  # each call runs past several boundaries
    runner = SegmentedTrajectoryRunner(env, backend, SamplingParams())
    result = runner.run_trajectory(0, step_callback=lambda r: COMPLETE)
    assert _texts(result) == SCRIPT_PIECES
    assert len(backend.requests) == 2
    assert backend.requests[1].prompt.continuation == "".join(TOKEN_PATTERN.findall(SCRIPT)[:12])
    _same_as_replay(env, result)


def test_complete_after_generation_ended_makes_no_call(env):
    backend = ChunkBackend("One. Two. Three.", size=100)  # one call generates everything
    runner = SegmentedTrajectoryRunner(env, backend, SamplingParams())
    result = runner.run_trajectory(
        0, step_callback=lambda r: COMPLETE if r.info["segment_index"] == 1 else None
    )
    assert _texts(result) == ["One. ", "Two. ", "Three."]
    assert [bool(t.info.get("one_shot")) for t in result.trajectory] == [False, True, True]
    assert len(backend.requests) == 1


def test_complete_with_no_budget_left_steps_the_buffer(env):
    result = _runner(env, SCRIPT, max_tokens=7)[0].run_trajectory(
        0, step_callback=lambda r: COMPLETE
    )
    assert _texts(result) == ["First, count the animals. ", "There"]
    assert result.trajectory[-1].info["one_shot"] and result.trajectory[-1].result.terminated


def test_callbacks_compose_across_steps(env):
    second = "Actually, fine. Sea slugs have 0. Deer have 48. So 100. <answer>100</answer>"
    runner, backend = _runner(env, SCRIPT, second)
    seen = []

    def script(step_result):
        index = step_result.info["segment_index"]
        seen.append(index)
        return {2: ForceAction("Forced. "), 3: "Feedback.", 4: None, 5: COMPLETE}.get(index)

    result = runner.run_trajectory(0, step_callback=script)
    assert seen == [1, 2, 3, 4, 5]
    assert _texts(result) == [
        *SCRIPT_PIECES[:2],
        "Forced. ",
        "Actually, fine. ",
        "Sea slugs have 0. ",
        "Deer have 48. ",
        "So 100. <answer>100</answer>",
    ]
    flags = [
        tuple(k for k in ("forced", "one_shot", "replayed") if t.info.get(k))
        for t in result.trajectory
    ]
    assert flags == [(), (), ("forced",), (), (), ("one_shot",), ("one_shot",)]
    assert backend.requests[-1].stop_at is None
    assert [m.role for m in result.messages] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert result.success


def test_force_action_after_the_terminal_step_is_refused(env):
    runner = _runner(env, "So 100. <answer>100</answer>")[0]

    def late(step_result):
        return ForceAction("More.") if step_result.terminated else None

    with pytest.raises(TerminalStateError, match="after the terminal step is refused"):
        runner.run_trajectory(0, step_callback=late)
    with pytest.raises(TerminalStateError, match="refused"):
        runner.run_trajectory(0, prefix="<answer>100</answer>", then=ForceAction("More."))


def test_complete_after_the_terminal_step_is_ignored(env):
    runner = _runner(env, "So 100. <answer>100</answer>")[0]
    result = runner.run_trajectory(0, step_callback=lambda r: COMPLETE)
    assert result.success and len(result.trajectory) == 1


def test_feedback_after_the_terminal_step_is_answered_in_a_new_turn(env):
    runner = _runner(env, "So 8. <answer>8</answer>", "Sorry: 100. <answer>100</answer>")[0]
    late = iter(["Are you sure?"])
    result = runner.run_trajectory(0, step_callback=lambda r: next(late, None))
    assert _texts(result) == ["So 8. <answer>8</answer>", "Sorry: 100. <answer>100</answer>"]
    assert [m.role for m in result.messages] == ["user", "assistant", "user", "assistant"]
    first, last = result.trajectory
    assert not first.result.terminated and "correctness" not in first.rewards.names
    assert last.result.terminated and result.success


def test_feedback_after_the_terminal_step_with_no_budget_left_is_ignored(env):
    runner = _runner(env, "So 8. <answer>8</answer>", max_tokens=3)[0]
    result = runner.run_trajectory(0, step_callback=lambda r: "Again.")
    assert len(result.trajectory) == 1 and result.trajectory[-1].result.terminated


def test_bad_callback_returns_are_refused(env):
    runner = _runner(env, SCRIPT)[0]
    with pytest.raises(TypeError, match="returns None, feedback text, COMPLETE or ForceAction"):
        runner.run_trajectory(0, step_callback=lambda r: 3)
    with pytest.raises(ValueError, match="non-empty"):
        runner.run_trajectory(0, step_callback=lambda r: "")


def test_empty_turn_after_an_intervention_is_finalized(env):
    runner, _ = _runner(env, "One. Two.", "")
    result = runner.run_trajectory(
        0, step_callback=lambda r: "Stop." if r.info["segment_index"] == 1 else None
    )
    assert _texts(result) == ["One. ", ""]
    assert result.trajectory[-1].result.terminated


def test_a_replay_only_segmenter_is_refused(leg_counting):
    class ReplayOnly(LineSegmenter):
        def first_cut(self, buffer, resume=0):
            raise NotImplementedError("replay only")

    env = SegmentedEnvironment(leg_counting, ReplayOnly())
    with pytest.raises(ValueError, match="replay-only"):
        SegmentedTrajectoryRunner(env, get_backend("scripted", outputs=[]))


def test_the_runner_needs_a_segmented_environment(leg_counting):
    with pytest.raises(TypeError, match="SegmentedEnvironment"):
        SegmentedTrajectoryRunner(leg_counting, get_backend("scripted", outputs=[]))


def test_boundary_strategy_stop_at_sees_the_buffer():
    strategy = BoundaryContinuationStrategy(SentenceSegmenter())
    strategy.absorb(Generation("One. Tw", FinishReason.BOUNDARY), budget=5)
    request = strategy.request(Prompt((Message("user", "q"),)), SamplingParams(), 5)
    assert request.stop_at("o.") is None
    assert request.stop_at("o. Th") == 3  # "Two. " ends 3 characters into this call's text
    assert FirstCut(None, 0).decided is False
    assert segmenter_from_spec("sentence").find_boundary("Two. Th") == 5


def test_boundary_probe_answers_any_text_like_find_boundary():
    strategy = BoundaryContinuationStrategy(SentenceSegmenter())
    strategy.absorb(Generation("One. x = 3", FinishReason.BOUNDARY), budget=5)
    stop_at = strategy.request(Prompt((Message("user", "q"),)), SamplingParams(), 5).stop_at
    find = SentenceSegmenter().find_boundary
    head = strategy.buffer
    for generated in [".", ".14", ".14 is pi", ".", "", ". Then", ".1"]:
        end = find(head + generated)
        expected = None if end is None else max(end - len(head), 0)
        assert stop_at(generated) == expected, generated


@settings(max_examples=40, deadline=None)
@given(
    SCRIPT_WORDS,
    LIVE_SPECS,
    st.integers(min_value=1, max_value=6),
)
def test_live_equals_replay_whatever_the_overshoot(leg_counting, words, spec, size):
    env = SegmentedEnvironment(leg_counting, spec)
    backend = ChunkBackend("".join(words), size=size)  # runs past boundaries by up to `size`
    result = SegmentedTrajectoryRunner(env, backend, SamplingParams()).run_trajectory(0)
    assert result.text == "".join(words)
    _same_as_replay(env, result)
