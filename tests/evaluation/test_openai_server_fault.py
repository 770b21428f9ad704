"""Invariant 6 on a real server: vLLM stopped during a 16-task evaluation, then restarted.

The run finishes with the trajectories it could not finish marked errored (their steps kept);
after the restart the same call completes exactly the missing tasks, with no task twice.
"""

from __future__ import annotations

import threading

import pytest

from llenvs.core import RunControl, SamplingParams, SegmentedEnvironment, SentenceSegmenter
from llenvs.core.registry import environment_registry
from llenvs.evaluation import LogConfig, RetryPolicy, run_segmented_evaluation
from llenvs.inference import HTTPOptions, get_backend
from llenvs.inference._backends.embedded_model import embedded_model_path
from llenvs.traces import read_traces

pytestmark = pytest.mark.vllm

TASKS = list(range(16))


def test_a_server_stopped_mid_run_errors_the_rest_and_a_rerun_completes_them(vllm_server, tmp_path):
    if not vllm_server.restartable:
        pytest.skip("LLENVS_TEST_VLLM_URL names a server these tests cannot restart")
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=20, seed=42)
    env = SegmentedEnvironment(base, SentenceSegmenter())
    folder = str(embedded_model_path(progress=False))
    backend = get_backend(
        "openai/smollm2",
        base_url=vllm_server.base_url,
        tokenizer=folder,
        http=HTTPOptions(max_retries=0),
    )
    out = tmp_path / "runs.jsonl"
    steps = 0
    stopped = threading.Event()

    def stop_mid_run(step):
        # From the 12th step (inside the first batch of 8), at a step its trajectory goes on
        # from: that trajectory asks again, so at least one errored trace has steps to keep.
        nonlocal steps
        steps += 1
        if steps >= 12 and not step.done and not stopped.is_set():
            stopped.set()
            vllm_server.stop()
        return None

    quick = RetryPolicy(attempts=2, backoff_s=0.05)
    params = SamplingParams(max_tokens=32)
    try:
        first = run_segmented_evaluation(
            env,
            backend,
            task_indices=TASKS,
            sampling_params=params,
            step_callback=stop_mid_run,
            log=LogConfig(targets=()),
            batch_size=8,
            control=RunControl(retry=quick),
            results_file=out,
        )
        assert stopped.is_set()
        assert first.errors  # the tasks the stop caught
        traces = {t.task.task_index: t for t in read_traces(out)}
        assert sorted(traces) == TASKS
        errored = [i for i, t in traces.items() if t.error is not None]
        assert errored and all(vllm_server.base_url in traces[i].error for i in errored)
        assert any(traces[i].segments for i in errored)  # steps kept from before the stop
        finished = {i: t.trace_id for i, t in traces.items() if t.error is None}
        kept_steps = sum(len(traces[i].segments) for i in errored)
        print(
            f"stopped: {len(finished)} finished, {len(errored)} errored ({kept_steps} steps kept)"
        )
        print(f"first error: {traces[errored[0]].error}")
    finally:  # the server is shared by the session: never leave it stopped
        if stopped.is_set():
            vllm_server.start()

    second = run_segmented_evaluation(
        env,
        backend,
        task_indices=TASKS,
        sampling_params=params,
        log=LogConfig(targets=()),
        batch_size=8,
        control=RunControl(retry=quick),
        results_file=out,
    )
    backend.close()
    assert second.errors == {}
    again = list(read_traces(out))
    assert sorted(t.task.task_index for t in again) == TASKS  # no task twice
    assert all(t.error is None for t in again)
    kept = {t.task.task_index: t.trace_id for t in again if t.task.task_index in finished}
    assert kept == finished  # finished tasks were not redone
    print(f"rerun: {len(second.traces)} traces, {len(TASKS) - len(finished)} run again, no errors")
