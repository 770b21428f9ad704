"""The job queue is fair between browser sessions; a session's jobs stop together.

Jobs here are gated: each records when it starts and waits for its gate, so the order of
starts is decided by the queue alone (no timing).
"""

from __future__ import annotations

import threading

import pytest

from llenvs.workbench.jobs import BackgroundJob, JobDropped, JobQueue, stop_session


class Gated(BackgroundJob):
    """Records its start in ``order``, then waits for ``gate`` (or a stop)."""

    def __init__(self, label: str, session: str, queue: JobQueue, order: list[str]) -> None:
        self.label, self.order = label, order
        self.gate = threading.Event()
        super().__init__(name=label, session=session, queue=queue)

    def work(self) -> None:
        self.order.append(self.label)
        while not self.gate.wait(0.01):
            if self.stop_requested:
                return


def _release_in_turn(jobs: list[Gated], order: list[str]) -> None:
    """Open each started job's gate in the order they start, until all have ended."""
    for count in range(1, len(jobs) + 1):
        _wait_for(lambda count=count: len(order) >= count or all(not j.running for j in jobs))
        if len(order) >= count:
            next(j for j in jobs if j.label == order[count - 1]).gate.set()
    assert all(job.wait(30) for job in jobs)


def _wait_for(condition) -> None:
    event = threading.Event()
    for _ in range(3000):
        if condition():
            return
        event.wait(0.01)
    pytest.fail("the queue did not move")


def test_one_sessions_job_runs_second_not_behind_anothers_four():
    queue, order = JobQueue(workers=1), []
    a = [Gated(f"a{n}", "session-a", queue, order) for n in range(1, 5)]
    b = Gated("b1", "session-b", queue, order)
    assert b.waiting and "queued for" in b.clock() and "4 jobs ahead" not in b.clock()
    assert b.ahead() == 0  # next, though four of a's came first
    _release_in_turn([*a, b], order)
    assert order == ["a1", "b1", "a2", "a3", "a4"]
    assert a[0].finished <= b.started  # b waited for the one worker, then ran
    assert b.queue_time() > 0 and "queued" in b.clock() and "running" in b.clock()


def test_with_two_workers_the_waiting_session_goes_before_the_busy_one():
    queue, order = JobQueue(workers=2), []
    a = [Gated(f"a{n}", "session-a", queue, order) for n in range(1, 5)]
    b = Gated("b1", "session-b", queue, order)
    _wait_for(lambda: len(order) == 2)
    assert b.ahead() == 0 and a[2].ahead() == 1
    _release_in_turn([*a, b], order)
    assert sorted(order[:2]) == ["a1", "a2"] and order[2] == "b1"


def test_stopping_a_session_drops_its_queued_jobs_and_stops_its_running_one():
    queue, order = JobQueue(workers=1), []
    running = Gated("a1", "session-a", queue, order)
    queued = [Gated(f"a{n}", "session-a", queue, order) for n in (2, 3)]
    other = Gated("b1", "session-b", queue, order)
    _wait_for(lambda: order == ["a1"])
    assert stop_session("session-a", queue) == 3
    assert running.wait(30) and running.stop_requested and running.error is None
    for job in queued:
        assert job.wait(30) and job.dropped and isinstance(job.error, JobDropped)
        assert job.started is None
    _wait_for(lambda: order == ["a1", "b1"])  # the other session's job runs next
    other.gate.set()
    assert other.wait(30) and not other.stop_requested
    assert order == ["a1", "b1"]  # a2 and a3 never ran


def test_a_job_made_outside_the_app_has_no_session_and_runs_on_the_shared_queue():
    class Sum(BackgroundJob):
        def work(self) -> None:
            self.total = 1 + 1

    job = Sum()
    assert job.wait(30) and job.total == 2 and job.session == ""
    assert job.started is not None and job.queued is not None and job.elapsed() >= 0
