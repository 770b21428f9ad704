import json

import pytest

from llenvs.core import (
    Action,
    Force,
    SamplingParams,
    SegmentedEnvironment,
    SentenceSegmenter,
    Transition,
)
from llenvs.core.run_spec import RunSpec, SegmenterSpec
from llenvs.traces import (
    BranchRecord,
    RunRecord,
    SegmentFlag,
    TaskRecord,
    Trace,
    trace_from_steps,
)
from tests.helpers import Hesitation

RESPONSE = """First, count the animals. There are 2 dogs.
Dogs have 4 legs each. So 2 × 4 = 8. <answer>100</answer>"""


@pytest.fixture
def env(leg_counting):
    return SegmentedEnvironment(
        leg_counting,
        SentenceSegmenter(),
        reward_functions=(Hesitation(), *leg_counting.reward_functions),
    )


def _replayed(env, text):
    state, _ = env.reset(options={"task_index": 0})
    transitions, before = [], state
    pieces = env.segmenter.pieces(text)
    for piece, result in zip(pieces, env.replay(state, text), strict=True):
        transitions.append(Transition(before, Action(piece), result))
        before = result.next_state
    return state, transitions


def test_a_replay_of_leg_counting_becomes_a_trace(env):
    state, transitions = _replayed(env, RESPONSE)
    task = TaskRecord.from_state(env.spec, state)
    run = RunRecord.made_with(RunSpec(), segmenter=env.spec.segmenter)
    trace = trace_from_steps(transitions, task, run)
    assert (task.environment, task.adapter, task.task_index) == ("leg_counting", "reasoning_gym", 0)
    assert task.adapter_kwargs == {"size": 100, "seed": 42}
    assert task.expected_answer == "100" and task.prompt == state.observation.prompt
    assert run.spec.segmenter == SegmenterSpec("sentence") and run.spec.sampling is None
    assert trace.response == RESPONSE
    assert [s.text for s in trace.segments] == list(transitions[-1].next_state.hidden.segments)
    assert [(s.start, s.end) for s in trace.segments] == [(0, 26), (26, 44), (44, 67), (67, 101)]
    assert all(RESPONSE[s.start : s.end] == s.text for s in trace.segments)
    assert [s.terminal for s in trace.segments] == [False, False, False, True]
    assert all(s.flags == {SegmentFlag.REPLAYED} for s in trace.segments)
    assert all(s.token_ids is None and s.logprobs is None for s in trace.segments)
    assert [s.prm_scores for s in trace.segments] == [{"hesitation": 1.0}] * 4
    assert trace.segments[-1].rewards == {"hesitation": 1.0, "correctness": 1.0, "format": 1.0}
    assert trace.final_rewards == {"correctness": 1.0, "format": 1.0}
    assert trace.success is True
    assert Trace.from_dict(json.loads(json.dumps(trace.to_dict()))) == trace


def test_a_wrong_answer_fails_and_a_truncated_episode_has_no_final_rewards(env):
    _, transitions = _replayed(env, RESPONSE.replace("100</answer>", "8</answer>"))
    task = TaskRecord("leg_counting", "reasoning_gym", {}, 0, "q")
    trace = trace_from_steps(transitions, task)
    assert trace.success is False and trace.final_rewards == {"correctness": 0.0, "format": 1.0}
    partial = trace_from_steps(transitions[:2], task, error="backend down")
    assert partial.final_rewards == {} and partial.success is False
    assert partial.error == "backend down" and partial.response == RESPONSE[:44]


def test_runner_flags_token_ids_and_logprobs_are_recorded(env):
    from dataclasses import replace

    _, transitions = _replayed(env, RESPONSE)
    infos = [
        {"replayed": True},
        {"forced": True},
        {"token_ids": (5, 6, 7), "logprobs": (-0.1, -0.2, -0.3)},
        {"token_ids": (), "one_shot": True},
    ]
    marked = [
        replace(t, result=replace(t.result, info={**t.info, **info}))
        for t, info in zip(transitions, infos, strict=True)
    ]
    parent = BranchRecord("abc", 1, Force("There are 2 dogs.\n"))
    trace = trace_from_steps(
        marked,
        TaskRecord("leg_counting", "reasoning_gym", {}, 0, "q"),
        feedback_after={2},
        parent=parent,
        metadata={"prefix_steps": 1},
    )
    flags = [sorted(f.value for f in s.flags) for s in trace.segments]
    assert flags == [
        ["replayed"],
        ["forced"],
        ["feedback_after", "generated"],
        ["generated", "one_shot"],
    ]
    assert trace.segments[2].token_ids == (5, 6, 7)
    assert trace.segments[2].logprobs == (-0.1, -0.2, -0.3)
    assert trace.segments[3].token_ids == () and trace.segments[3].logprobs is None
    assert trace.parent == parent and trace.metadata == {"prefix_steps": 1}


def test_a_runner_trajectory_becomes_a_trace(env):
    from llenvs.evaluation import SegmentedTrajectoryRunner
    from llenvs.inference._backends.scripted import ScriptedBackend

    params = SamplingParams(max_tokens=256, seed=1, logprobs=True)
    runner = SegmentedTrajectoryRunner(env, ScriptedBackend([RESPONSE]), params)
    result = runner.run_trajectory(0, prefix=["First, count the animals. "])
    state, _ = env.reset(options={"task_index": 0})
    trace = trace_from_steps(
        result.trajectory.transitions,
        TaskRecord.from_state(env.spec, state),
        RunRecord.made_with(
            RunSpec(sampling=params), model_name="scripted", segmenter=env.spec.segmenter
        ),
        messages=result.messages,
    )
    assert trace.response == RESPONSE == result.text
    assert trace.segments[0].flags == {SegmentFlag.REPLAYED}
    assert all(s.flags == {SegmentFlag.GENERATED} for s in trace.segments[1:])
    assert all(s.token_ids and len(s.logprobs) == len(s.token_ids) for s in trace.segments[1:])
    assert trace.success is result.success is True
    assert trace.run.spec.sampling == params and params.max_tokens == 256 and params.seed == 1
    assert [m.role for m in trace.messages] == ["user", "assistant"]
    assert Trace.from_dict(json.loads(json.dumps(trace.to_dict()))) == trace
