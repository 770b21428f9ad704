"""Work that runs in a thread of its own while the page stays live, with a Stop.

Streamlit reruns the page on every click, which would cut short work done in the page's own
run. A ``BackgroundJob`` runs its ``work`` in a daemon thread instead; the page reads how far it
got, asks it to stop (``stop``: the work checks ``stop_requested`` between its steps), and
shows its error, which is kept rather than raised.

Example:
    >>> class Count(BackgroundJob):
    ...     def work(self) -> None:
    ...         self.total = sum(range(10))
    >>> job = Count()
    >>> job.wait(10), job.total, job.error, job.running
    (True, 45, None, False)

"""

from __future__ import annotations

import threading
import time

__all__ = ["BackgroundJob"]


class BackgroundJob:
    """Runs ``self.work()`` in a daemon thread, started by ``start`` (see the module)."""

    def __init__(self, *, name: str = "llenvs-job", start: bool = True) -> None:
        self.started = time.perf_counter()
        """When the job started (``time.perf_counter``)."""
        self.finished: float | None = None
        """When it ended, or None while it runs."""
        self.error: Exception | None = None
        """What stopped it, if it failed."""
        self._stop = threading.Event()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        if start:
            self._thread.start()

    def work(self) -> None:
        """The job itself (subclasses); ``stop_requested`` says when to end early."""
        raise NotImplementedError

    def start(self) -> None:
        """Start the thread (when made with ``start=False``)."""
        self.started = time.perf_counter()
        self._thread.start()

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
