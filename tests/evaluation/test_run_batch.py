from llenvs.core import SamplingParams
from llenvs.evaluation import COMPLETE, ForceAction, SegmentedTrajectoryRunner
from tests.evaluation.conftest import SCRIPT, KeyedBackend


def _scripts(env, tasks):
    """One script per task (keyed by its question), plus feedback turns."""
    scripts = {}
    for task in tasks:
        question = env.reset(options={"task_index": task})[0].observation.prompt
        scripts[question] = SCRIPT if task % 2 == 0 else f"Hm. Task {task}. <answer>{task}</answer>"
    scripts["Check again."] = "Checked. Fine. So 100. <answer>100</answer>"
    return scripts


def _callback(step_result):
    index = step_result.info["segment_index"]
    task = step_result.next_state.metadata.task_index
    if task == 1 and index == 1:
        return ForceAction("Forced. ")
    if task == 2 and index == 2:
        return "Check again."
    if task == 3 and index == 1:
        return COMPLETE
    return None


def _comparable(result):
    return (
        [
            (t.action.text, t.result.terminated, t.rewards.as_dict(), dict(t.info))
            for t in result.trajectory
        ],
        result.success,
        {k: v for k, v in result.metadata.items()},
    )


def test_batch_equals_one_trajectory_at_a_time(env):
    tasks = [0, 1, 2, 3, 4]
    prefixes = [None, "Start. ", None, ["One. "], None]
    batch_backend = KeyedBackend(_scripts(env, tasks))
    runner = SegmentedTrajectoryRunner(env, batch_backend, SamplingParams(max_tokens=60))
    batch = runner.run_batch(tasks, step_callback=_callback, prefixes=prefixes, max_steps=6)
    single = []
    for task, prefix in zip(tasks, prefixes, strict=True):
        one = SegmentedTrajectoryRunner(
            env, KeyedBackend(_scripts(env, tasks)), SamplingParams(max_tokens=60)
        )
        single.append(one.run_trajectory(task, _callback, prefix=prefix, max_steps=6))
    assert [_comparable(r) for r in batch] == [_comparable(r) for r in single]
    assert len({r.metadata["calls"] for r in batch}) > 1  # they do end at different rounds


def test_lockstep_one_call_per_round_finished_ones_dropped(env):
    tasks = [0, 1, 2, 3]
    backend = KeyedBackend(_scripts(env, tasks))
    runner = SegmentedTrajectoryRunner(env, backend, SamplingParams())
    results = runner.run_batch(tasks)
    rounds = max(r.metadata["calls"] for r in results)
    assert len(backend.calls) == rounds
    assert backend.calls[0] == 4
    assert backend.calls == sorted(backend.calls, reverse=True)
    assert sum(backend.calls) == sum(r.metadata["calls"] for r in results)


def test_complete_remainders_are_batched(env):
    tasks = [0, 2, 4]
    backend = KeyedBackend(_scripts(env, tasks))
    runner = SegmentedTrajectoryRunner(env, backend, SamplingParams())
    results = runner.run_batch(tasks, thens=[COMPLETE] * 3)
    assert backend.calls == [3]
    assert results[0].success  # SCRIPT answers task 0
    assert all(r.trajectory.is_done and r.text == SCRIPT for r in results)
    assert all(t.info["one_shot"] for r in results for t in r.trajectory)


def test_batch_argument_lengths_must_match(env):
    runner = SegmentedTrajectoryRunner(env, KeyedBackend({}), SamplingParams())
    try:
        runner.run_batch([0, 1], prefixes=[None])
    except ValueError as error:
        assert "as many prefixes" in str(error)
    else:
        raise AssertionError("expected a ValueError")
