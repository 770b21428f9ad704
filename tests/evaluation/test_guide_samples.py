"""The guide's samples from "Generation-Time Segmentation" to "Continuation strategies", as written.

``backend`` is the scripted backend, whose pseudo-tokens no real tokenizer shares, so the Token
sample stands in a token segmenter over those pseudo-tokens (same ``tokenizer``/``token_size``
attributes); the real ``TokenSegmenter`` on the embedded model's tokenizer runs the same path in
the transformers backend's tests. The ``run_segmented_evaluation`` and ``LogConfig`` samples are
in ``tests/evaluation/test_evaluation.py``; the manual loop in ``tests/guide/test_manual_loop.py``.
"""

from llenvs.core import SegmentedEnvironment, SentenceSegmenter
from llenvs.core.registry import environment_registry
from llenvs.evaluation import (
    COMPLETE,
    BoundaryContinuationStrategy,
    ForceAction,
    SegmentedTrajectoryRunner,
    TokenContinuationStrategy,
)
from llenvs.inference import get_backend
from llenvs.inference.protocol import SamplingParams
from tests.evaluation.conftest import (
    SCRIPT,
    SCRIPT_PIECES,
    FakeTokenSegmenter,
    PseudoTokenizer,
    ScriptedWithTokenizer,
)
from tests.helpers import Hesitation

RECOUNT = "Let me recount. 0 + 48 + 8 + 44 = 100. <answer>100</answer>"


def test_basic_usage_with_a_token_segmenter(capsys):
    base_env = environment_registry.get(
        name="leg_counting", adapter="reasoning_gym", size=100, seed=42
    )

    tokenizer = PseudoTokenizer()  # Any tokenizer with encode/decode
    segmenter = FakeTokenSegmenter(tokenizer=tokenizer, token_size=64)
    env = SegmentedEnvironment(base_env, segmenter)
    backend = ScriptedWithTokenizer([SCRIPT], tokenizer)

    # Run a single trajectory
    runner = SegmentedTrajectoryRunner(
        environment=env,
        backend=backend,
        sampling_params=SamplingParams(max_tokens=2048),
    )
    result = runner.run_trajectory(task_index=0)
    print(f"Steps: {len(result.trajectory)}, Success: {result.success}")

    tokens = len(tokenizer.encode(SCRIPT))
    steps = -(-tokens // 64)
    assert capsys.readouterr().out == f"Steps: {steps}, Success: True\n"
    assert [r.max_tokens for r in backend.requests] == [64] * steps


def test_observation_injection_with_step_callback(process_env):
    env = process_env  # the guide's env, plus a PROCESS reward (0.2 for a hesitant segment)
    backend = get_backend(
        "scripted", outputs=["Two dogs. Maybe 8 legs? So 8. <answer>8</answer>", RECOUNT]
    )
    runner = SegmentedTrajectoryRunner(
        environment=env, backend=backend, sampling_params=SamplingParams(max_tokens=2048)
    )

    def reward_feedback(step_result):
        """Return feedback string or None to continue without feedback."""
        reward = step_result.rewards.total
        if reward < 0.5:
            return f"Score: {reward:.2f}. Please reconsider your approach."
        return None  # No feedback, continue single assistant turn

    result = runner.run_trajectory(
        task_index=0,
        step_callback=reward_feedback,
    )

    roles = [m.role for m in result.messages]
    assert roles == ["user", "assistant", "user", "assistant"]
    assert result.messages[1].content == "Two dogs. Maybe 8 legs? "
    assert result.messages[2].content == ("Score: 0.20. Please reconsider your approach.")
    assert result.messages[3].content == RECOUNT
    assert result.success
    # The accumulated text keeps all assistant text, both turns.
    assert result.trajectory[-1].next_state.hidden.accumulated_text == (
        "Two dogs. Maybe 8 legs? " + RECOUNT
    )


def test_no_callback_is_a_single_assistant_turn(env):
    runner = SegmentedTrajectoryRunner(
        env, get_backend("scripted", outputs=[SCRIPT]), SamplingParams(max_tokens=2048)
    )
    result = runner.run_trajectory(task_index=0)
    assert [m.role for m in result.messages] == ["user", "assistant"]


def test_early_exit_with_complete(leg_counting):
    base_env = leg_counting
    env = SegmentedEnvironment(base_env, SentenceSegmenter())
    backend = get_backend("scripted", outputs=[SCRIPT])

    runner = SegmentedTrajectoryRunner(
        environment=env,
        backend=backend,
        sampling_params=SamplingParams(max_tokens=2048),
    )

    def probe_callback(step_result):
        """Step 5 segments, then finish in one shot."""
        if step_result.info.get("segment_index", 0) >= 5:
            return COMPLETE  # finish remainder in a single LLM call
        return None

    result = runner.run_trajectory(task_index=0, step_callback=probe_callback)
    # result.trajectory has all transitions (probed + remainder)
    # result.success reflects final correctness

    assert [t.action.text for t in result.trajectory] == SCRIPT_PIECES
    assert [bool(t.info.get("one_shot")) for t in result.trajectory] == [False] * 5 + [True] * 2
    assert len(backend.requests) == 6
    assert result.success


def test_early_exit_when_the_episode_ends_first_is_a_normal_run(env):
    def probe_callback(step_result):
        if step_result.info.get("segment_index", 0) >= 50:
            return COMPLETE
        return None

    probed = SegmentedTrajectoryRunner(env, get_backend("scripted", outputs=[SCRIPT]))
    plain = SegmentedTrajectoryRunner(env, get_backend("scripted", outputs=[SCRIPT]))
    a = probed.run_trajectory(task_index=0, step_callback=probe_callback)
    b = plain.run_trajectory(task_index=0)
    assert [(t.action, t.rewards, dict(t.info)) for t in a.trajectory] == [
        (t.action, t.rewards, dict(t.info)) for t in b.trajectory
    ]


def test_prefix_replay_text_form(env):
    backend = get_backend("scripted", outputs=["Step 1: count animals.\nStep 2: 2 dogs. " + SCRIPT])
    runner = SegmentedTrajectoryRunner(env, backend, SamplingParams(max_tokens=2048))

    result = runner.run_trajectory(
        task_index=0,
        prefix="Step 1: count animals.\nStep 2: 2 dogs.",
    )
    # Prefix is segmented via env.segmenter, stepped through env,
    # then generation continues with the prefix as assistant prefill.

    assert result.metadata["prefix_steps"] == 2
    assert [t.action.text for t in result.trajectory[:2]] == [
        "Step 1: count animals.\n",
        "Step 2: 2 dogs.",
    ]
    assert all(t.info["replayed"] for t in result.trajectory[:2])
    assert backend.requests[0].prompt.continuation == "Step 1: count animals.\nStep 2: 2 dogs."
    assert result.success


def test_prefix_replay_structured_form(env):
    backend = get_backend("scripted", outputs=[SCRIPT])
    runner = SegmentedTrajectoryRunner(env, backend, SamplingParams(max_tokens=2048))

    # Run an initial trajectory
    old_result = runner.run_trajectory(task_index=0)

    # Extract the first 5 state-action pairs
    prefix_pairs = [(t.state, t.action) for t in old_result.trajectory.transitions[:5]]

    # Resume from that prefix
    result = runner.run_trajectory(task_index=0, prefix=prefix_pairs)

    assert result.metadata["prefix_steps"] == 5
    assert [t.info.get("replayed", False) for t in result.trajectory] == [True] * 5 + [False] * 2
    assert result.text == old_result.text and result.success


def test_prefix_plus_one_shot_completion(env):
    backend = get_backend("scripted", outputs=["My partial reasoning trace... " + SCRIPT])
    runner = SegmentedTrajectoryRunner(env, backend, SamplingParams(max_tokens=2048))

    result = runner.run_trajectory(
        task_index=0,
        prefix="My partial reasoning trace...",
        step_callback=lambda _: COMPLETE,
    )

    # The callback never runs on replayed steps; the first live step runs it, so the rest
    # comes in one more call.
    assert result.metadata["prefix_steps"] == 1
    assert len(backend.requests) == 2
    assert backend.requests[1].stop_at is None
    assert all(t.info.get("one_shot") for t in result.trajectory[2:])
    assert result.success


def test_forcing_actions(env):
    backend = get_backend("scripted", outputs=[SCRIPT])
    runner = SegmentedTrajectoryRunner(env, backend, SamplingParams(max_tokens=2048))

    def my_callback(step_result):
        if step_result.next_state.hidden.segment_index == 3:
            return ForceAction("Therefore, x = 42.")
        return None

    result = runner.run_trajectory(task_index=0, step_callback=my_callback)

    forced = result.trajectory[3]
    assert forced.action.text == "Therefore, x = 42." and forced.info["forced"]
    assert "Therefore, x = 42." in result.trajectory[-1].next_state.hidden.accumulated_text
    assert backend.requests[3].prompt.continuation == (
        "".join(SCRIPT_PIECES[:3]) + "Therefore, x = 42."
    )


def test_complex_callback(env):
    backend = get_backend("scripted", outputs=[SCRIPT])
    runner = SegmentedTrajectoryRunner(env, backend, SamplingParams(max_tokens=2048))

    def complex_callback(step_result):
        idx = step_result.next_state.hidden.segment_index
        if idx == 2:
            return ForceAction("Injected reasoning step.")
        if idx == 5:
            return COMPLETE
        return None

    result = runner.run_trajectory(task_index=0, step_callback=complex_callback)

    flags = [
        "forced" if t.info.get("forced") else "one_shot" if t.info.get("one_shot") else "-"
        for t in result.trajectory
    ]
    assert flags[:5] == ["-", "-", "forced", "-", "-"]
    assert set(flags[5:]) == {"one_shot"}
    assert result.trajectory[2].action.text == "Injected reasoning step."
    assert result.trajectory.is_done


def test_continuation_strategies_are_auto_selected(leg_counting):
    sentence_env = SegmentedEnvironment(leg_counting, SentenceSegmenter())
    runner = SegmentedTrajectoryRunner(sentence_env, get_backend("scripted", outputs=[]))
    assert isinstance(runner._new_strategy(), BoundaryContinuationStrategy)
    tokenizer = PseudoTokenizer()
    token_env = SegmentedEnvironment(leg_counting, FakeTokenSegmenter(tokenizer, 64))
    runner = SegmentedTrajectoryRunner(token_env, ScriptedWithTokenizer([], tokenizer))
    assert isinstance(runner._new_strategy(), TokenContinuationStrategy)


def test_hesitation_reward_is_process(process_env):
    assert process_env.reward_functions[0].reward_type.per_step
    assert isinstance(process_env.reward_functions[0], Hesitation)
