"""Work that runs off the page's own run while the page stays live, with a Stop.

A ``BackgroundJob`` runs its ``work`` on a worker of the ``JobQueue``; the page reads how far it
got, asks it to stop (``stop``) and shows its error, kept rather than raised. It knows its
browser session (given by the page that made it), when it was queued, started and ended
(``clock``); ``stop_session`` stops all of a session's jobs. Why: ``docs/architecture.md``.

Example:
    >>> class Count(BackgroundJob):
    ...     def work(self) -> None:
    ...         self.total = sum(range(10))
    >>> job = Count()
    >>> job.wait(10), job.total, job.error, job.running, job.session
    (True, 45, None, False, '')

"""

from __future__ import annotations

import threading
import time

from llenvs.core import StopToken
from llenvs.workbench.jobs._job_queue import JobQueue, shared_queue
from llenvs.workbench.models import Lease, shared_pool

__all__ = ["BackgroundJob", "JobDropped", "stop_session"]


class JobDropped(Exception):
    """A job taken out of the queue before it ran: it did nothing, wrote nothing.

    Example:
        >>> str(JobDropped())
        "stopped before it ran (all of this session's jobs were stopped); nothing was done"

    """

    def __init__(self) -> None:
        super().__init__(
            "stopped before it ran (all of this session's jobs were stopped); nothing was done"
        )


def stop_session(session: str, queue: JobQueue | None = None) -> int:
    """Stop every job of ``session``: queued ones never run, running ones stop at their next step.

    Returns how many jobs it stopped.

    Example:
        >>> stop_session("no-such-session")
        0

    """
    dropped, running = (queue or shared_queue()).cancel(session)
    for job in running:
        if isinstance(job, BackgroundJob):
            job.stop()
    return len(dropped) + len(running)


class BackgroundJob:
    """Runs ``self.work()`` on a worker thread, from ``start`` (see the module).

    Arguments:
        name: what the job is.
        start: queue it at once (else call ``start``).
        session: the browser session it belongs to ("" outside the app).
        queue: the queue it waits in; by default the one every session shares.
        model: the loaded model it runs on: the shared pool keeps it loaded from the moment
            the job is queued until it ends.

    Example:
        >>> class Nothing(BackgroundJob):
        ...     def work(self) -> None: ...
        >>> job = Nothing(start=False)
        >>> job.clock(), job.queued is None
        ('not started', True)

    """

    def __init__(
        self,
        *,
        name: str = "llenvs-job",
        start: bool = True,
        session: str = "",
        queue: JobQueue | None = None,
        model: object = None,
    ) -> None:
        self.name = name
        """What the job is."""
        self.session = session
        """The browser session that made it ("" outside the app)."""
        self.queued: float | None = None
        """When it was handed to the queue (``time.perf_counter``), None before."""
        self.started: float | None = None
        """When a worker began it, None while it waits."""
        self.finished: float | None = None
        """When it ended (ran to its end, failed, or was dropped from the queue)."""
        self.error: Exception | None = None
        """What stopped it, if it failed (``JobDropped`` if it never ran)."""
        self.dropped = False
        """True when it was taken out of the queue before it ran (``stop_session``)."""
        self._queue = queue
        self._model = model
        self._lease: Lease | None = None
        self.stop_token = StopToken()
        """Stopped by ``stop`` (and when dropped): the work hands it to the library call."""
        self._done = threading.Event()
        if start:
            self.start()

    def work(self) -> None:
        """The job itself (subclasses); ``stop_requested`` says when to end early."""
        raise NotImplementedError

    def start(self) -> None:
        """Queue the job (when made with ``start=False``); a worker runs it in its turn."""
        self.queued = time.perf_counter()
        self._lease = shared_pool().lease(self._model)
        (self._queue or shared_queue()).submit(self)

    @property
    def running(self) -> bool:
        """Whether the work goes on or waits to (False once ended or dropped)."""
        return not self._done.is_set()

    @property
    def waiting(self) -> bool:
        """Whether it waits in the queue for a worker."""
        return self.started is None and self.running

    @property
    def stop_requested(self) -> bool:
        """Whether ``stop`` was called."""
        return self.stop_token.stopped

    def stop(self) -> None:
        """Ask the work to end at its next step; what it made is kept."""
        self.stop_token.stop()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the job to end; True if it has."""
        return self._done.wait(timeout)

    def queue_time(self) -> float:
        """Seconds it waited for a worker (so far, while it waits).

        Example:
            >>> job = BackgroundJob(start=False)
            >>> job.queued, job.started = 10.0, 12.5
            >>> job.queue_time()
            2.5

        """
        if self.queued is None:
            return 0.0
        until = self.started or self.finished or time.perf_counter()
        return until - self.queued

    def elapsed(self) -> float:
        """Seconds it has run (generation time), up to its end; 0 while it waits.

        Example:
            >>> job = BackgroundJob(start=False)
            >>> job.queued, job.started, job.finished = 10.0, 12.5, 20.0
            >>> job.elapsed()
            7.5

        """
        if self.started is None:
            return 0.0
        return (self.finished or time.perf_counter()) - self.started

    def ahead(self) -> int | None:
        """How many queued jobs start before this one, or None when it is not queued."""
        return (self._queue or shared_queue()).ahead_of(self)

    def clock(self) -> str:
        """Its times in words: waiting (and behind how many), or run time and queue time.

        Example:
            >>> job = BackgroundJob(start=False)
            >>> job.queued, job.started, job.finished = 10.0, 12.5, 20.0
            >>> job.clock()
            '7.5 s running, after 2.5 s queued'
            >>> job.queued, job.started, job.finished = 10.0, None, 14.0  # waited 4 s, never ran
            >>> job.clock()
            'queued for 4.0 s'

        """
        if self.queued is None:
            return "not started"
        if self.started is None:
            ahead = self.ahead() if self.running else None
            behind = f", {ahead} {'job' if ahead == 1 else 'jobs'} ahead" if ahead else ""
            return f"queued for {self.queue_time():.1f} s{behind}"
        return f"{self.elapsed():.1f} s running, after {self.queue_time():.1f} s queued"

    def run_queued(self) -> None:
        """Run the work on the worker calling (the queue's turn); its error is kept."""
        self.started = time.perf_counter()
        try:
            self.work()
        except Exception as error:  # kept for the page to show
            self.error = error
        finally:
            self._let_go()
            self.finished = time.perf_counter()
            self._done.set()

    def drop(self) -> None:
        """Taken out of the queue before it ran: it ends without running (``JobDropped``)."""
        self.dropped = True
        self.error = JobDropped()
        self._let_go()
        self.stop_token.stop()
        self.finished = time.perf_counter()
        self._done.set()

    def _let_go(self) -> None:
        """The job has ended: its model may be dropped from the pool (and freed)."""
        self._model = None
        if self._lease is not None:
            self._lease.release()
