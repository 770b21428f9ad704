"""Work that runs off the page's own run while the page stays live, with a Stop.

Streamlit reruns the page on every click, which would cut short work done in the page's own
run. A ``BackgroundJob`` runs its ``work`` on one of the app's worker threads instead; the page
reads how far it got, asks it to stop (``stop``: the work checks ``stop_requested`` between its
steps), and shows its error, which is kept rather than raised.

The workers are few and long-lived (``WORKERS``, shared by every session), not a new thread per
job: torch runs its operators on an OpenMP thread team per calling thread, and two teams on a
small machine slow each other down (measured on 2 cores: 1.2 s for a branch on the thread that
ran the model before, 2.1 s on a fresh one), so one job after another stays on one thread.

Example:
    >>> class Count(BackgroundJob):
    ...     def work(self) -> None:
    ...         self.total = sum(range(10))
    >>> job = Count()
    >>> job.wait(10), job.total, job.error, job.running
    (True, 45, None, False)

"""

from __future__ import annotations

import collections
import queue
import threading
import time
from collections.abc import Callable

__all__ = ["WORKERS", "BackgroundJob"]

WORKERS = 2
"""Jobs that run at once (two sessions' jobs interleave on a shared model); more wait."""


class _Worker:
    """A daemon thread that runs the tasks it is given, one at a time."""

    def __init__(self, number: int) -> None:
        self._tasks: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        thread = threading.Thread(target=self._serve, name=f"llenvs-job-{number}", daemon=True)
        thread.start()

    def give(self, task: Callable[[], None]) -> None:
        self._tasks.put(task)

    def _serve(self) -> None:
        while True:
            task: Callable[[], None] | None = self._tasks.get()
            while task is not None:
                task()
                task = _next_for(self)


_LOCK = threading.Lock()
_IDLE: list[_Worker] = []
"""Idle workers, the last one freed on top: one job after another lands on the same thread."""
_WORKERS: list[_Worker] = []
_PENDING: collections.deque[Callable[[], None]] = collections.deque()


def _submit(task: Callable[[], None]) -> None:
    """Run ``task`` on the worker freed last, a new one while fewer than ``WORKERS``, or next.

    The workers are daemons: unlike ``concurrent.futures``' they never hold the process open.
    """
    with _LOCK:
        if _IDLE:
            _IDLE.pop().give(task)
        elif len(_WORKERS) < WORKERS:
            worker = _Worker(len(_WORKERS))
            _WORKERS.append(worker)
            worker.give(task)
        else:
            _PENDING.append(task)


def _next_for(worker: _Worker) -> Callable[[], None] | None:
    """The task waiting for ``worker``, or None (it is idle then)."""
    with _LOCK:
        if _PENDING:
            return _PENDING.popleft()
        _IDLE.append(worker)
        return None


class BackgroundJob:
    """Runs ``self.work()`` on a worker thread, from ``start`` (see the module)."""

    def __init__(self, *, name: str = "llenvs-job", start: bool = True) -> None:
        self.started = time.perf_counter()
        """When the job started (``time.perf_counter``)."""
        self.finished: float | None = None
        """When it ended, or None while it runs."""
        self.error: Exception | None = None
        """What stopped it, if it failed."""
        self.name = name
        """What the job is, for its worker thread's name."""
        self._stop = threading.Event()
        self._done = threading.Event()
        if start:
            self.start()

    def work(self) -> None:
        """The job itself (subclasses); ``stop_requested`` says when to end early."""
        raise NotImplementedError

    def start(self) -> None:
        """Hand the job to a worker (when made with ``start=False``)."""
        self.started = time.perf_counter()
        _submit(self._run)

    @property
    def running(self) -> bool:
        """Whether the work goes on."""
        return not self._done.is_set()

    @property
    def stop_requested(self) -> bool:
        """Whether ``stop`` was called."""
        return self._stop.is_set()

    def stop(self) -> None:
        """Ask the work to end at its next step; what it made is kept."""
        self._stop.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the job to end; True if it has."""
        return self._done.wait(timeout)

    def elapsed(self) -> float:
        """Seconds since the start, up to the end once it has ended."""
        return (self.finished or time.perf_counter()) - self.started

    def _run(self) -> None:
        try:
            self.work()
        except Exception as error:  # kept for the page to show
            self.error = error
        finally:
            self.finished = time.perf_counter()
            self._done.set()
