"""How on-policy a forced text is, computed in the background with a Stop.

The intervention panel asks, before Generate, how likely the model finds the text about to be
forced (``llenvs.evaluation.branching``): one prefill for the text, ``samples`` continuations
of the model's own from the same place, and a prefill for each. ``OnPolicyJob`` runs it on the
job queue; its backend is wrapped so that a Stop ends the sampling at the next token
(``StoppableBackend``), and a stopped job keeps no score (``stopped``). ``tokens`` counts the
tokens sampled so far, for the panel's progress.

Example:
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A.",
    ...           segments=(SegmentRecord(0, 0, 2, "A."),))
    >>> job = OnPolicyJob(t, 0, "B.", get_backend("scripted", outputs=["x"]), samples=2)
    >>> job.wait(10), job.result, type(job.error).__name__
    (True, None, 'OnPolicyError')

"""

from __future__ import annotations

import threading

from llenvs.analysis.sampling import RolloutsStopped, StoppableBackend
from llenvs.core import ModelBackend, RunEvent
from llenvs.evaluation.branching import OnPolicy, on_policy
from llenvs.traces import Trace
from llenvs.workbench.jobs._background_job import BackgroundJob

__all__ = ["OnPolicyJob", "on_policy_key"]


def on_policy_key(trace: Trace, at: int, text: str, model: str, samples: int) -> tuple[object, ...]:
    """What a score is a score of: the trace, the place, the text, the model and the samples.

    Example:
        >>> from llenvs.traces import TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> on_policy_key(t, 0, "x", "m", 16)[1:]
        (0, 'x', 'm', 16)

    """
    return (trace.trace_id, at, text, model, samples)


class OnPolicyJob(BackgroundJob):
    """``on_policy(trace, at, text, backend, samples=samples)`` in the background.

    ``result`` is the score once done; ``stopped`` is True when a Stop ended the sampling
    (no score is kept); ``error`` is why it could not be computed (``OnPolicyError`` for a
    backend that cannot score, named).
    """

    def __init__(
        self,
        trace: Trace,
        at: int,
        text: str,
        backend: ModelBackend,
        *,
        samples: int,
        session: str = "",
    ) -> None:
        super().__init__(name="llenvs-on-policy", start=False, session=session, model=backend)
        self.samples = samples
        """The continuations of the model's own the text is placed among."""
        self.result: OnPolicy | None = None
        """The score, once computed."""
        self.stopped = False
        """True when a Stop ended it before the score was computed."""
        self._call = (trace, at, text, backend)
        self._tokens = 0
        self._lock = threading.Lock()
        self.start()

    @property
    def tokens(self) -> int:
        """Tokens of the model's own continuations sampled so far."""
        with self._lock:
            return self._tokens

    def _count(self, event: RunEvent) -> None:
        del event  # every event of the wrapped backend is one generated token
        with self._lock:
            self._tokens += 1

    def work(self) -> None:
        """Score the text; a Stop during the sampling keeps nothing."""
        trace, at, text, backend = self._call
        stoppable = StoppableBackend(backend, self.stop_token, self._count)
        try:
            self.result = on_policy(trace, at, text, stoppable, samples=self.samples)
        except RolloutsStopped:
            self.stopped = True
