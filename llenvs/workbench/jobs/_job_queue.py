"""The workbench's job queue: a few long-lived workers, shared fairly by browser sessions.

Jobs wait in one line per browser session. When a worker frees up it takes the first job of
the session with the fewest jobs running, and among those the one served least recently
(round-robin), so one session's many queued jobs cannot starve another's: a session that
queues one job behind another's four runs it next. ``cancel(session)`` takes a session's
queued jobs out without running them and returns those of its jobs that run, for the caller
to stop.

The workers are few and long-lived (``WORKERS``), not a new thread per job: torch runs its
operators on an OpenMP thread team per calling thread, and two teams on a small machine slow
each other down (measured on 2 cores: 1.2 s for a branch on the thread that ran the model
before, 2.1 s on a fresh one), so one job after another lands on the worker freed last. They
are daemons: unlike ``concurrent.futures``' they never hold the process open.

Example:
    >>> import threading
    >>> class Note:
    ...     def __init__(self, session, log, gate=None):
    ...         self.session, self.log, self.gate = session, log, gate
    ...     def run_queued(self):
    ...         self.gate and self.gate.wait(10)
    ...         self.log.append(self.session)
    ...     def drop(self):
    ...         self.log.append(f"{self.session} dropped")
    >>> queue, log, gate = JobQueue(workers=1), [], threading.Event()
    >>> queue.submit(Note("a", log, gate))  # runs at once, held at its gate
    >>> for job in [Note("a", log), Note("a", log), Note("b", log)]:
    ...     queue.submit(job)
    >>> queue.waiting("a"), queue.waiting("b")
    (2, 1)
    >>> gate.set(); queue.join(10)
    True
    >>> log  # b's one job ran before a's second and third
    ['a', 'b', 'a', 'a']

"""

from __future__ import annotations

import threading
from collections import Counter, deque
from typing import Protocol

__all__ = ["WORKERS", "JobQueue", "QueuedJob", "shared_queue"]

WORKERS = 2
"""Jobs that run at once (two sessions' jobs interleave on a shared model); more wait."""


class QueuedJob(Protocol):
    """What the queue runs: a job of one browser session."""

    @property
    def session(self) -> str:
        """The browser session that made it ("" outside a running app)."""
        ...

    def run_queued(self) -> None:
        """Do the job (on a worker); it keeps its own error."""
        ...

    def drop(self) -> None:
        """Taken out of the queue before it ran (a cancel)."""
        ...


class _Worker:
    """A daemon thread that runs the jobs its queue hands it, one at a time."""

    def __init__(self, queue: JobQueue, number: int) -> None:
        self._queue = queue
        self._jobs: deque[QueuedJob] = deque()
        self._wake = threading.Semaphore(0)
        thread = threading.Thread(target=self._serve, name=f"llenvs-job-{number}", daemon=True)
        thread.start()

    def give(self, job: QueuedJob) -> None:
        self._jobs.append(job)
        self._wake.release()

    def _serve(self) -> None:
        while True:
            self._wake.acquire()
            job: QueuedJob | None = self._jobs.popleft()
            while job is not None:
                try:
                    job.run_queued()
                finally:
                    job = self._queue._after(job, self)


class JobQueue:
    """Workers shared by browser sessions, each session's jobs in a line of its own.

    Arguments:
        workers: the most jobs running at once (> 0).

    Example:
        >>> JobQueue(workers=0)
        Traceback (most recent call last):
        ...
        ValueError: workers must be > 0, got 0

    """

    def __init__(self, workers: int = WORKERS) -> None:
        if workers <= 0:
            raise ValueError(f"workers must be > 0, got {workers}")
        self.workers = workers
        """The most jobs running at once."""
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        """Idle workers, the last one freed on top: one job after another on one thread."""
        self._made = 0
        self._lines: dict[str, deque[QueuedJob]] = {}
        self._running: Counter[str] = Counter()
        self._served: dict[str, int] = {}
        """When each session last had a job started (a count of starts)."""
        self._starts = 0
        self._now: set[QueuedJob] = set()
        """The jobs running now."""
        self._quiet = threading.Condition(self._lock)

    def submit(self, job: QueuedJob) -> None:
        """Queue ``job`` in its session's line; it starts at once when a worker is free."""
        with self._lock:
            self._lines.setdefault(job.session, deque()).append(job)
            worker = self._free_worker()
            if worker is not None:
                worker.give(self._pick())

    def waiting(self, session: str) -> int:
        """How many of ``session``'s jobs wait for a worker."""
        with self._lock:
            return len(self._lines.get(session, ()))

    def running(self, session: str) -> int:
        """How many of ``session``'s jobs run now."""
        with self._lock:
            return self._running[session]

    def ahead_of(self, job: QueuedJob) -> int | None:
        """How many queued jobs start before ``job`` (as things stand); None when not queued.

        Example:
            >>> class Job:
            ...     session = "s"
            ...     def run_queued(self): ...
            ...     def drop(self): ...
            >>> JobQueue().ahead_of(Job()) is None
            True

        """
        with self._lock:
            if not any(job in line for line in self._lines.values()):
                return None
            lines = {s: deque(line) for s, line in self._lines.items()}
            running, served, starts = Counter(self._running), dict(self._served), self._starts
            ahead = 0
            while True:
                session = _next_session(lines, running, served)
                if lines[session][0] is job:
                    return ahead
                lines[session].popleft()
                if not lines[session]:
                    del lines[session]
                running[session] += 1
                starts += 1
                served[session] = starts
                ahead += 1

    def cancel(self, session: str) -> tuple[list[QueuedJob], list[QueuedJob]]:
        """Take ``session``'s queued jobs out, each told ``drop``; they and its running ones.

        The running ones are the caller's to stop.

        Example:
            >>> JobQueue().cancel("nobody")
            ([], [])

        """
        with self._lock:
            dropped = list(self._lines.pop(session, ()))
            running = [job for job in self._now if job.session == session]
            self._quiet.notify_all()
        for job in dropped:
            job.drop()
        return dropped, running

    def join(self, timeout: float | None = None) -> bool:
        """Wait until no job runs nor waits; True if so."""
        with self._quiet:
            return self._quiet.wait_for(lambda: not self._lines and not self._running, timeout)

    def _free_worker(self) -> _Worker | None:
        """An idle worker, a new one while fewer than ``workers``, else None (lock held)."""
        if self._idle:
            return self._idle.pop()
        if self._made < self.workers:
            self._made += 1
            return _Worker(self, self._made - 1)
        return None

    def _pick(self) -> QueuedJob:
        """The next job to start, taken from its line and counted as running (lock held)."""
        session = _next_session(self._lines, self._running, self._served)
        line = self._lines[session]
        job = line.popleft()
        if not line:
            del self._lines[session]
        self._running[session] += 1
        self._starts += 1
        self._served[session] = self._starts
        self._now.add(job)
        return job

    def _after(self, job: QueuedJob, worker: _Worker) -> QueuedJob | None:
        """``job`` ended on ``worker``: the job it runs next, or None (it is idle then)."""
        with self._lock:
            self._now.discard(job)
            self._running[job.session] -= 1
            if self._running[job.session] <= 0:
                del self._running[job.session]
            if self._lines:
                return self._pick()
            self._idle.append(worker)
            self._quiet.notify_all()
            return None


def _next_session(
    lines: dict[str, deque[QueuedJob]], running: Counter[str], served: dict[str, int]
) -> str:
    """The session whose job starts next: fewest running, then served least recently."""
    return min(lines, key=lambda s: (running[s], served.get(s, 0)))


_SHARED: list[JobQueue] = []
_SHARED_LOCK = threading.Lock()


def shared_queue() -> JobQueue:
    """The queue every session of this process shares (made on first use).

    Example:
        >>> shared_queue() is shared_queue()
        True

    """
    with _SHARED_LOCK:
        if not _SHARED:
            _SHARED.append(JobQueue(WORKERS))
        return _SHARED[0]
