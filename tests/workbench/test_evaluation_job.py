"""``EvaluationJob``: each task's ``TaskState`` follows the run's typed events, and Stop keeps
the finished tasks.

The ``Gate`` backend holds its first call until the test lets it go, so the test stops the job
while a call is in progress, not after a sleep.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from llenvs.core import BackendCapabilities, Generation, GenerationRequest
from llenvs.inference import get_backend
from llenvs.traces import read_traces
from llenvs.workbench.jobs import EvaluationJob, EvaluationPlan, OutcomeKind, TaskState, run_outcome

OUTPUTS = ["Two. <answer>4</answer>", "Hm. So. <answer>1000</answer>", "Three."]


def _plan(tasks: tuple[int, ...], batch_size: int = 8) -> EvaluationPlan:
    return EvaluationPlan(
        "reasoning_gym",
        "leg_counting",
        {"size": 10, "seed": 42},
        "sentence",
        None,
        tasks,
        "scripted",
        max_tokens=64,
        batch_size=batch_size,
    )


class Gate:
    """The scripted backend, its first call held until ``release`` (``entered`` says it began)."""

    name = "scripted"
    capabilities = BackendCapabilities()

    def __init__(self, outputs: list[str]) -> None:
        self.backend = get_backend("scripted", outputs=outputs)
        self.entered = threading.Event()
        self.release = threading.Event()

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Generation]:
        self.entered.set()
        assert self.release.wait(30), "the test never let the call go"
        return list(self.backend.generate(requests))


def test_each_tasks_state_follows_the_runs_events(tmp_path):
    plan = _plan((0, 1, 2))
    backend = get_backend("scripted", outputs=OUTPUTS)
    environment = plan.environment(backend)
    job = EvaluationJob(plan, environment, backend, tmp_path / plan.results_name())
    assert job.wait(60) and job.error is None
    statuses = job.snapshot()
    assert job.result is not None
    expected = {
        t.task.task_index: TaskState.SUCCEEDED if t.success else TaskState.FAILED
        for t in job.result.traces
    }
    assert {task: s.state for task, s in statuses.items()} == expected
    assert sorted(expected) == [0, 1, 2] and TaskState.FAILED in expected.values()
    assert [statuses[t].steps for t in (0, 1, 2)] == [
        len(t.segments) for t in sorted(job.result.traces, key=lambda t: t.task.task_index)
    ]
    assert statuses[2].last == "Three."  # the latest segment's text, from its StepTaken
    assert run_outcome(statuses, "x.jsonl", stopped=False).kind is OutcomeKind.DONE
    statuses[0].state = TaskState.ERROR  # a snapshot is a copy
    assert job.snapshot()[0].state is not TaskState.ERROR


def test_stop_keeps_the_finished_tasks_and_leaves_the_others_waiting(tmp_path):
    plan = _plan((0, 1, 2), batch_size=1)  # one at a time: task 0 runs, 1 and 2 wait
    gate = Gate(OUTPUTS)
    environment = plan.environment(gate)
    path = tmp_path / plan.results_name()
    job = EvaluationJob(plan, environment, gate, path)
    assert gate.entered.wait(30)
    job.stop()  # while task 0's first call is in progress
    gate.release.set()
    assert job.wait(60) and job.error is None
    statuses = job.snapshot()
    # the call in progress brought task 0's whole answer: it ended, and is kept
    assert statuses[0].state.ended and statuses[0].steps == 1
    assert [statuses[t].state for t in (1, 2)] == [TaskState.WAITING] * 2  # never started
    assert job.result is not None
    assert [t.task.task_index for t in read_traces(path)] == [0]
    assert [t.task.task_index for t in job.result.traces] == [0]
    outcome = run_outcome(statuses, path.name, stopped=True)
    assert outcome.kind is OutcomeKind.STOPPED and "1 of 3 tasks kept" in outcome.message
