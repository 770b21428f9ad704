"""run_segmented_evaluation: batches, logs, retries, errored trajectories, resume, traces."""

from __future__ import annotations

import json

import pytest

from llenvs.core import (
    BackendCapabilities,
    RunControl,
    SegmentedEnvironment,
    SentenceSegmenter,
    Stopped,
    StopToken,
)
from llenvs.core.errors import BackendError, TaskIndexError
from llenvs.core.run_spec import SegmenterSpec
from llenvs.evaluation import (
    LogConfig,
    RetryPolicy,
    SegmentedTrajectoryRunner,
    run_segmented_evaluation,
)
from llenvs.evaluation.episodes import StepTaken, TrajectoryEnded
from llenvs.inference._backends.scripted import ScriptedBackend
from llenvs.inference.protocol import SamplingParams
from llenvs.traces import SegmentFlag, read_traces
from tests.evaluation.conftest import KeyedBackend

# The answers of tasks 0..9 of leg_counting (size 100, seed 42).
ANSWERS = ["100", "140", "286", "187", "184", "231", "355", "228", "286", "404"]
QUIET = LogConfig(targets=())
INSTANT = RetryPolicy(attempts=3, sleep=lambda seconds: None)


def _script(index, right=True):
    answer = ANSWERS[index] if right else "7"
    return f"Count the legs. Add them up. The total is {answer}. <answer>{answer}</answer>"


def _prompts(env, tasks):
    return [env.reset(options={"task_index": i})[0].observation.prompt for i in tasks]


def _keyed(env, tasks, right=lambda i: True):
    prompts = _prompts(env, tasks)
    return KeyedBackend({p: _script(i, right(i)) for p, i in zip(prompts, tasks, strict=True)})


class Flaky:
    """Fails its first ``failures`` calls with a retryable error, then delegates."""

    def __init__(self, inner, failures):
        self.inner, self.failures, self.calls = inner, failures, 0
        self.name = inner.name
        self.capabilities = BackendCapabilities()

    def generate(self, requests):
        self.calls += 1
        if self.calls <= self.failures:
            raise BackendError("server busy")
        return self.inner.generate(requests)


class DownFor:
    """Fails, always, every request of one conversation once it has ``after`` chars of text."""

    def __init__(self, inner, prompt, after):
        self.inner, self.prompt, self.after = inner, prompt, after
        self.name = inner.name
        self.capabilities = BackendCapabilities()

    def generate(self, requests):
        for request in requests:
            prompt = request.prompt
            if (
                prompt.messages[-1].content == self.prompt
                and len(prompt.continuation) >= self.after
            ):
                raise BackendError("connection reset")
        return self.inner.generate(requests)


class Crash(Exception):
    """Not retryable: stands in for the process dying."""


class CrashAfter:
    def __init__(self, inner, calls):
        self.inner, self.left = inner, calls
        self.name = inner.name
        self.capabilities = BackendCapabilities()

    def generate(self, requests):
        if self.left == 0:
            raise Crash("killed")
        self.left -= 1
        return self.inner.generate(requests)


def test_the_guides_sentence_segmenter_sample(leg_counting, capsys):
    base_env = leg_counting
    scripts = [_script(i, right=i % 3 != 0) for i in range(10)]
    backend = ScriptedBackend(scripts)

    # The guide's sample, as written:
    env = SegmentedEnvironment(base_env, SentenceSegmenter())

    result = run_segmented_evaluation(
        environment=env,
        backend=backend,
        num_tasks=10,
    )
    print(f"Accuracy: {result.success_rate:.1%}")

    assert "Accuracy: 60.0%" in capsys.readouterr().out  # tasks 0, 3, 6, 9 are answered wrong
    assert [t.task.task_index for t in result.traces] == list(range(10))
    assert [t.success for t in result.traces] == [i % 3 != 0 for i in range(10)]
    assert all(
        t.run.spec.segmenter == SegmenterSpec("sentence") and t.run.model_name == "scripted"
        for t in result.traces
    )


def test_the_guides_batched_sample_logs_to_console_and_file(leg_counting, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = SegmentedEnvironment(leg_counting, SentenceSegmenter())
    backend = ScriptedBackend([_script(i) for i in range(4)])
    seen, progress = [], []

    def my_callback(step_result):
        seen.append(step_result.info["segment_index"])
        return None

    from llenvs.evaluation import LogConfig  # the guide's import

    result = run_segmented_evaluation(
        environment=env,
        backend=backend,
        num_tasks=4,
        step_callback=my_callback,  # Runs per-trajectory
        progress_callback=lambda c, t: progress.append((c, t)),
        log=LogConfig(targets=("console", "file")),  # Structured logging
    )

    assert result.success_rate == 1.0
    assert progress == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert seen.count(1) == 4  # the callback ran in each of the 4 trajectories
    logs = list((tmp_path / "llenvs_logs").glob("*.jsonl"))
    assert logs == [tmp_path / result.log_path]  # ./llenvs_logs/ by default
    events = [json.loads(line) for line in logs[0].read_text().splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds[0] == "start" and kinds[-1] == "end"
    assert kinds.count("trajectory_end") == 4
    assert kinds.count("step") == sum(len(t.segments) for t in result.traces) == 12
    first_step = next(e for e in events if e["event"] == "step")
    assert first_step["text"] == "Count the legs. " and first_step["terminal"] is False
    assert events[-1]["succeeded"] == 4 and events[-1]["errors"] == 0


def test_batches_give_the_same_traces_as_one_by_one(leg_counting):
    env = SegmentedEnvironment(leg_counting, SentenceSegmenter())
    tasks = list(range(7))
    right = lambda i: i % 2 == 0  # noqa: E731
    batched = run_segmented_evaluation(
        env, _keyed(env, tasks, right), num_tasks=7, batch_size=3, log=QUIET
    )
    single = run_segmented_evaluation(
        env, _keyed(env, tasks, right), num_tasks=7, batch_size=1, log=QUIET
    )
    runner = SegmentedTrajectoryRunner(env, _keyed(env, tasks, right))
    direct = [runner.run_trajectory(i) for i in tasks]
    assert [t.response for t in batched.traces] == [t.response for t in single.traces]
    assert [t.response for t in batched.traces] == [r.text for r in direct]
    assert [t.success for t in batched.traces] == [r.success for r in direct]
    assert [t.final_rewards for t in batched.traces] == [t.final_rewards for t in single.traces]


def test_a_failing_call_is_retried_with_backoff(leg_counting):
    env = SegmentedEnvironment(leg_counting, SentenceSegmenter())
    waits = []
    retry = RetryPolicy(attempts=3, backoff_s=0.5, multiplier=2, sleep=waits.append)
    backend = Flaky(ScriptedBackend([_script(0)]), failures=2)
    result = run_segmented_evaluation(
        env, backend, num_tasks=1, control=RunControl(retry=retry), log=QUIET
    )
    assert result.success_rate == 1.0 and result.errors == {}
    assert waits == [0.5, 1.0]


def test_a_trajectory_that_keeps_failing_is_errored_with_its_steps(leg_counting, tmp_path):
    env = SegmentedEnvironment(leg_counting, SentenceSegmenter())
    tasks = list(range(4))
    prompt = _prompts(env, [2])[0]
    backend = DownFor(_keyed(env, tasks), prompt, after=len("Count the legs. Add them up. "))
    out = tmp_path / "results.jsonl"
    result = run_segmented_evaluation(
        env,
        backend,
        num_tasks=4,
        control=RunControl(retry=INSTANT),
        log=LogConfig(("file",), tmp_path),
        results_file=out,
    )
    assert set(result.errors) == {2} and "connection reset" in result.errors[2]
    errored = result.traces[2]
    assert [s.text for s in errored.segments] == ["Count the legs. ", "Add them up. "]
    assert errored.success is False
    assert result.results[2].error == errored.error
    assert [t.success for i, t in enumerate(result.traces) if i != 2] == [True] * 3
    assert result.success_rate == 0.75
    kinds = [json.loads(line)["event"] for line in result.log_path.read_text().splitlines()]
    assert kinds.count("error") == 1 and kinds.count("trajectory_end") == 3
    saved = list(read_traces(out))
    assert [t.error is not None for t in saved] == [False, False, True, False]


def test_without_a_retry_policy_the_runner_raises(leg_counting):
    env = SegmentedEnvironment(leg_counting, SentenceSegmenter())
    runner = SegmentedTrajectoryRunner(env, Flaky(ScriptedBackend([_script(0)]), failures=1))
    with pytest.raises(BackendError, match="server busy"):
        runner.run_trajectory(0)
    retrying = SegmentedTrajectoryRunner(env, Flaky(ScriptedBackend([_script(0)]), failures=5))
    result = retrying.run_trajectory(0, control=RunControl(retry=INSTANT))
    assert result.error == "BackendError: server busy" and len(result.trajectory) == 0


def test_an_interrupted_evaluation_resumes_without_redoing_finished_tasks(leg_counting, tmp_path):
    env = SegmentedEnvironment(leg_counting, SentenceSegmenter())
    tasks = list(range(6))
    out = tmp_path / "results.jsonl"
    # Each batch of 2 takes 3 rounds (3 segments); the crash comes in the third batch.
    crashing = CrashAfter(_keyed(env, tasks), calls=6)
    with pytest.raises(Crash):
        run_segmented_evaluation(
            env, crashing, num_tasks=6, batch_size=2, log=QUIET, results_file=out
        )
    assert [t.task.task_index for t in read_traces(out)] == [0, 1, 2, 3]

    fresh = _keyed(env, tasks)
    progress = []
    result = run_segmented_evaluation(
        env,
        fresh,
        num_tasks=6,
        batch_size=2,
        log=QUIET,
        results_file=out,
        progress_callback=lambda c, t: progress.append((c, t)),
    )
    asked = {key for key, b in fresh.backends.items() if b.requests}
    assert asked == set(_prompts(env, [4, 5]))  # only the missing tasks ran
    assert result.resumed == 4 and sorted(result.results) == [4, 5]
    assert progress == [(4, 6), (5, 6), (6, 6)]
    assert result.success_rate == 1.0
    assert [t.task.task_index for t in read_traces(out)] == list(range(6))


def test_resume_runs_errored_tasks_again(leg_counting, tmp_path):
    env = SegmentedEnvironment(leg_counting, SentenceSegmenter())
    out = tmp_path / "results.jsonl"
    prompt = _prompts(env, [1])[0]
    down = DownFor(_keyed(env, [0, 1, 2]), prompt, after=0)
    first = run_segmented_evaluation(
        env, down, num_tasks=3, control=RunControl(retry=INSTANT), log=QUIET, results_file=out
    )
    assert set(first.errors) == {1}
    again = run_segmented_evaluation(
        env, _keyed(env, [0, 1, 2]), num_tasks=3, log=QUIET, results_file=out
    )
    assert again.resumed == 2 and sorted(again.results) == [1] and again.errors == {}
    assert [t.error for t in read_traces(out)] == [None, None, None]


def test_resume_refuses_a_results_file_of_another_run(leg_counting, tmp_path):
    out = tmp_path / "results.jsonl"
    env = SegmentedEnvironment(leg_counting, SentenceSegmenter())
    run_segmented_evaluation(env, _keyed(env, [0]), num_tasks=1, log=QUIET, results_file=out)
    lines = SegmentedEnvironment(leg_counting, "line")
    with pytest.raises(ValueError, match="results file holds traces of another run"):
        run_segmented_evaluation(lines, _keyed(env, [0]), num_tasks=1, log=QUIET, results_file=out)


def test_save_writes_traces_that_read_back_identical(leg_counting, tmp_path):
    env = SegmentedEnvironment(leg_counting, SentenceSegmenter())
    result = run_segmented_evaluation(env, _keyed(env, [0, 1, 2]), num_tasks=3, log=QUIET)
    path = result.save(tmp_path / "eval.jsonl")
    assert tuple(read_traces(path)) == result.traces
    segment = result.traces[0].segments[0]
    assert SegmentFlag.GENERATED in segment.flags and segment.token_ids


def test_feedback_is_recorded_in_the_trace(leg_counting):
    env = SegmentedEnvironment(leg_counting, SentenceSegmenter())
    prompt = _prompts(env, [0])[0]
    backend = KeyedBackend(
        {prompt: "So 7. Done. ", "Check again.": "It is 100. <answer>100</answer>"}
    )

    def once(step_result):
        return "Check again." if step_result.info["segment_index"] == 1 else None

    result = run_segmented_evaluation(env, backend, task_indices=[0], step_callback=once, log=QUIET)
    trace = result.traces[0]
    assert [SegmentFlag.FEEDBACK_AFTER in s.flags for s in trace.segments] == [True, False]
    assert trace.metadata["feedback"] == [{"after_segment": 1, "text": "Check again."}]
    assert [m.role for m in trace.messages] == ["user", "assistant", "user", "assistant"]
    assert trace.success


def test_task_selection_errors_are_clear(leg_counting):
    env = SegmentedEnvironment(leg_counting, SentenceSegmenter())
    backend = ScriptedBackend([])
    with pytest.raises(ValueError, match="not both"):
        run_segmented_evaluation(env, backend, num_tasks=2, task_indices=[0], log=QUIET)
    with pytest.raises(TaskIndexError, match=r"0\.\.99"):
        run_segmented_evaluation(env, backend, task_indices=[100], log=QUIET)
    with pytest.raises(ValueError, match="num_tasks must be > 0"):
        run_segmented_evaluation(env, backend, num_tasks=0, log=QUIET)
    with pytest.raises(ValueError, match="batch_size"):
        run_segmented_evaluation(env, backend, num_tasks=1, batch_size=0, log=QUIET)


def test_sampling_params_reach_the_backend_and_the_trace(leg_counting):
    env = SegmentedEnvironment(leg_counting, SentenceSegmenter())
    backend = ScriptedBackend([_script(0)])
    params = SamplingParams(max_tokens=5, seed=3)
    result = run_segmented_evaluation(env, backend, num_tasks=1, sampling_params=params, log=QUIET)
    trace = result.traces[0]
    assert trace.run.spec.sampling.seed == 3 and trace.run.spec.sampling.max_tokens == 5
    assert trace.metadata["budget_exhausted"] and not trace.success
    assert trace.metadata["generated_tokens"] == 5
    assert sum(r.max_tokens for r in backend.requests[:1]) <= 5


def test_a_stopped_evaluation_keeps_what_finished_and_a_rerun_completes_the_rest(
    leg_counting, tmp_path
):
    env = SegmentedEnvironment(leg_counting, SentenceSegmenter())
    tasks = list(range(6))
    out = tmp_path / "results.jsonl"
    token, events = StopToken(), []

    def stop_after_first(event):
        """Stop the run once a trajectory has ended."""
        events.append(event)
        if isinstance(event, TrajectoryEnded):
            token.stop()

    result = run_segmented_evaluation(
        env,
        _keyed(env, tasks),
        num_tasks=6,
        batch_size=2,
        log=QUIET,
        results_file=out,
        control=RunControl(stop_after_first, token),
    )
    # the first batch (tasks 0 and 1) ends in the same round: both kept, nothing else run
    kept = [t.task.task_index for t in read_traces(out)]
    assert kept == [0, 1] and [t.task.task_index for t in result.traces] == [0, 1]
    assert all(not t.metadata.get("stopped") for t in read_traces(out))
    assert [type(e).__name__ for e in events[-2:]] == ["Stopped", "RunEnded"]
    assert events[-2] == Stopped(kept=2)

    fresh = _keyed(env, tasks)
    again = run_segmented_evaluation(
        env, fresh, num_tasks=6, batch_size=2, log=QUIET, results_file=out
    )
    assert again.resumed == 2 and sorted(again.results) == [2, 3, 4, 5]
    assert [t.task.task_index for t in read_traces(out)] == tasks  # none twice, none lost


def test_a_stop_in_the_middle_of_a_batch_drops_the_trajectories_in_flight(leg_counting, tmp_path):
    env = SegmentedEnvironment(leg_counting, SentenceSegmenter())
    out = tmp_path / "results.jsonl"
    steps, token = [], StopToken()

    def stop_at_second_step(event):
        if isinstance(event, StepTaken):
            steps.append(event)
            if len(steps) == 2:
                token.stop()

    result = run_segmented_evaluation(
        env,
        _keyed(env, [0, 1]),
        num_tasks=2,
        batch_size=2,
        log=QUIET,
        results_file=out,
        control=RunControl(stop_at_second_step, token),
    )
    assert result.traces == ()  # both were in flight at the stop: neither is kept
    assert not out.exists() or list(read_traces(out)) == []
