"""One event stream: every long call takes one ``control=RunControl``, and what it emits is typed.

The events say what the traces will hold (a step's ``SegmentRecord`` is the trace's), a stop
token ends a call where its docstring says and the call says so (``Stopped``), and no function of
the package takes one of the callback shapes the stream replaced.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from llenvs.analysis import (
    AnalysisParams,
    RolloutFinished,
    RolloutsProgress,
    RoundDone,
    analyze_trace,
    run_rollouts,
)
from llenvs.core import (
    Force,
    Resample,
    RunControl,
    RunEvent,
    SamplingParams,
    SegmentedEnvironment,
    Stopped,
    StopToken,
    TokenGenerated,
)
from llenvs.evaluation import (
    BranchRequest,
    LogConfig,
    SegmentedTrajectoryRunner,
    branch,
    intervene,
    replay_trace,
    rerun_branch,
    run_segmented_evaluation,
)
from llenvs.evaluation.branching import rerun
from llenvs.evaluation.episodes import StepTaken, TrajectoryEnded, TrajectoryOver
from llenvs.experiments import run_experiment
from llenvs.inference import get_backend
from llenvs.traces import SegmentFlag, read_traces

QUIET = LogConfig(targets=())

PACKAGE = Path(__file__).resolve().parents[2] / "llenvs"

REPLACED = {
    "on_step",
    "on_segment",
    "on_progress",
    "on_round",
    "on_token",
    "on_rollout",
    "sinks",
    "should_stop",
}
"""The callback shapes (and the stop check) the one observer and the one token replaced."""

LONG_CALLS = [
    SegmentedTrajectoryRunner.run_trajectory,
    SegmentedTrajectoryRunner.run_batch,
    SegmentedTrajectoryRunner.run_tasks,
    run_segmented_evaluation,
    branch,
    rerun_branch,
    intervene,
    rerun,
    run_rollouts,
    analyze_trace,
    run_experiment,
]


@pytest.fixture
def env(leg_counting):
    return SegmentedEnvironment(leg_counting, "sentence")


@pytest.fixture
def parent(env):
    return replay_trace(env, 0, "Count. So 8. <answer>8</answer>", model="scripted")


@pytest.mark.parametrize("call", LONG_CALLS, ids=lambda call: call.__qualname__)
def test_every_long_call_takes_one_run_control(call):
    parameters = inspect.signature(call).parameters
    assert parameters["control"].kind is inspect.Parameter.KEYWORD_ONLY
    assert parameters["control"].default is None
    assert not {"observer", "stop", "retry"} & set(parameters)  # each only inside the control
    assert not REPLACED & set(parameters)


def test_no_function_of_the_package_takes_a_replaced_callback_shape():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                arguments = node.args.args + node.args.kwonlyargs + node.args.posonlyargs
                found += [
                    f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {node.name}({a.arg})"
                    for a in arguments
                    if a.arg in REPLACED
                ]
    assert found == []


def test_a_branchs_step_events_are_the_segments_its_traces_record(parent):
    backend = get_backend("scripted", outputs=["Count. So 9. Then 10. <answer>10</answer>"])
    events: list[RunEvent] = []
    request = BranchRequest(parent, 1, Resample(2, SamplingParams(temperature=1.0, seed=3)))
    children = branch(request, backend, control=RunControl(events.append))
    steps = [e for e in events if isinstance(e, StepTaken)]
    for number, child in enumerate(children):
        seen = [e.segment for e in steps if e.trajectory == number]
        assert seen == list(child.segments[1:])  # the kept prefix is replayed, not observed
        assert {e.task_index for e in steps} == {child.task.task_index}
    ended = [e for e in events if isinstance(e, TrajectoryEnded)]
    assert sorted(e.trajectory for e in ended) == [0, 1]
    assert [e.result.text for e in sorted(ended, key=lambda e: e.trajectory)] == [
        child.response for child in children
    ]
    assert not any(isinstance(e, Stopped) for e in events)  # nothing was stopped


def test_a_stop_token_ends_a_branch_after_the_segment_being_made_and_says_so(parent):
    backend = get_backend("scripted", outputs=["So 9. Then 10. More. <answer>10</answer>"])
    token, events = StopToken(), []

    def stop_after_first_generated(event):
        events.append(event)
        if isinstance(event, StepTaken) and SegmentFlag.GENERATED in event.flags:
            token.stop()

    [child] = branch(
        BranchRequest(parent, 1, Force("So 9. ")),
        backend,
        control=RunControl(stop_after_first_generated, token),
    )
    assert child.metadata["stopped"] is True and child.metadata["truncated"] is True
    # the kept segment, the forced one, and the one generated segment made before the stop
    assert [s.text for s in child.segments[:2]] == ["Count. ", "So 9. "]
    assert [s.flags for s in child.segments[1:]] == [{SegmentFlag.FORCED}, {SegmentFlag.GENERATED}]
    assert events[-1] == Stopped(kept=0)  # its one branch was cut: none ran to its end
    assert not any(isinstance(e, TrajectoryEnded) for e in events)


def test_an_evaluation_reports_each_task_once_its_trace_is_kept(env):
    outputs = ["A. <answer>3</answer>", "B. C. <answer>4</answer>", "D."]
    events: list[RunEvent] = []
    result = run_segmented_evaluation(
        env,
        get_backend("scripted", outputs=outputs),
        num_tasks=3,
        batch_size=3,
        log=QUIET,
        control=RunControl(events.append),
    )
    kinds = [e.kind for e in events]
    assert kinds[0] == "start" and kinds[-1] == "end"
    ended = {e.task_index: e for e in events if isinstance(e, TrajectoryOver)}
    assert sorted(ended) == [0, 1, 2]
    for trace in result.traces:
        index = trace.task.task_index
        assert ended[index].success == trace.success
        steps = [e.segment for e in events if isinstance(e, StepTaken) and e.task_index == index]
        assert [s.text for s in steps] == [s.text for s in trace.segments]
        assert kinds.index("trajectory_end") > kinds.index("step")


def test_a_stopped_token_cuts_rollouts_at_the_next_token_and_keeps_none_of_the_cut(env, parent):
    backend = get_backend("scripted", outputs=["So 100. <answer>100</answer>"])
    token, events = StopToken(), []

    def stop_at_first_token(event):
        events.append(event)
        if isinstance(event, TokenGenerated):
            token.stop()

    rollouts = run_rollouts(
        parent,
        [(1, 0), (1, 1)],
        backend,
        AnalysisParams(),
        environment=env,
        control=RunControl(stop_at_first_token, token),
    )
    assert rollouts == []
    # both requests of the batch call were in progress: each ends after the token it was making
    assert [e.kind for e in events] == ["token", "token", "stopped"]
    assert events[-1] == Stopped(kept=0)


def test_an_analysis_reports_progress_rounds_and_tokens(env, parent, tmp_path):
    backend = get_backend("scripted", outputs=["Count. So 100. <answer>100</answer>"])
    events: list[RunEvent] = []
    analysis = analyze_trace(
        parent,
        backend,
        AnalysisParams(budget=8, width=0.5),
        store=tmp_path / "t.analysis.jsonl",
        environment=env,
        control=RunControl(events.append),
    )
    progress = [(e.done, e.planned) for e in events if isinstance(e, RolloutsProgress)]
    assert progress == [(n, 8) for n in range(9)]  # the start, then each rollout
    rounds = [e for e in events if isinstance(e, RoundDone)]
    assert sum(len(e.rollouts) for e in rounds) == len(analysis.rollouts) == 8
    assert [e.rounds for e in rounds] == list(range(1, analysis.rounds + 1))
    kinds = [e.kind for e in events]
    assert kinds.index("token") < kinds.index("round")  # tokens arrive inside the batch call
    assert not any(isinstance(e, RolloutFinished | Stopped) for e in events)  # kept inside


def test_an_observer_that_raises_ends_the_run_with_its_error(env):
    class Refused(Exception):
        pass

    def refuse(event):
        raise Refused(event.kind)

    runner = SegmentedTrajectoryRunner(env, get_backend("scripted", outputs=["A. B."]))
    with pytest.raises(Refused, match="step"):
        runner.run_trajectory(0, control=RunControl(refuse))


def test_the_embedded_models_step_events_carry_the_trace_records_token_ids(
    embedded_backend, leg_counting, tmp_path
):
    """A real model: what the observer saw, segment by segment, is what the trace file holds."""
    out = tmp_path / "r.jsonl"
    env = SegmentedEnvironment(leg_counting, "sentence")
    events: list[RunEvent] = []
    result = run_segmented_evaluation(
        env,
        embedded_backend,
        task_indices=[0],
        sampling_params=SamplingParams(max_tokens=40, temperature=0.0),
        log=QUIET,
        results_file=out,
        control=RunControl(events.append),
    )
    [trace] = read_traces(out)
    assert trace == result.traces[0]
    seen = [e.segment for e in events if isinstance(e, StepTaken)]
    assert [(s.start, s.text) for s in seen] == [(s.start, s.text) for s in trace.segments]
    assert [s.token_ids for s in seen] == [s.token_ids for s in trace.segments]
    assert all(s.token_ids for s in seen)  # the model's own ids, as they came
