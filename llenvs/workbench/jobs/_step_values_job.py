"""A step-value analysis running in the background.

``StepValuesJob`` runs the library's ``analyze_trace`` on a worker thread (``BackgroundJob``),
so the page stays live while rollouts are generated: the page reads how far it got
(``progress``: planned from the start, each rollout counted as it finishes; ``tokens``: every
token as the backend generates it, which moves inside a batch call whose rollouts all come back
at its end; ``rounds``) and asks it to stop (``stop``), which the backend reads after its next
token: the calls in progress end there, the rollouts that finished are stored, and every
finished round stays in the trace file's ``*.analysis.jsonl`` sidecar, so a later run with the
same model and sampling fields resumes from them. A failure is kept (``error``) for the page to
show.

What the sidecar holds is read back by the library, with no model (``stored_keys``,
``stored_step_analysis``, ``stored_forced_answers`` of ``llenvs.analysis``).

Example:
    >>> import tempfile, pathlib
    >>> from llenvs.analysis import stored_keys, stored_step_analysis
    >>> trace = leg_counting_trace("Count. So 8. <answer>8</answer>")
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.jsonl"
    >>> backend = get_backend("scripted", outputs=["Count. So 100. <answer>100</answer>"])
    >>> job = StepValuesJob(path, trace, backend, AnalysisParams(budget=8))
    >>> job.wait(60), job.error, job.progress(), job.rounds(), job.tokens() > 0
    (True, None, (8, 8), 1, True)
    >>> [v.value for v in job.analysis.values]
    [1.0, 1.0, 0.0]
    >>> [key["model"] for key in stored_keys(job.store, trace.trace_id)]
    ['scripted']
    >>> again = stored_step_analysis(trace, job.store, job.key)
    >>> [v.value for v in again.values], again.resumed
    ([1.0, 1.0, 0.0], 8)

"""

from __future__ import annotations

import os
import threading

from llenvs.analysis import (
    AnalysisParams,
    RolloutsProgress,
    RoundDone,
    Schedule,
    StepAnalysis,
    analysis_key,
    analysis_path,
    analyze_trace,
)
from llenvs.core import ModelBackend, RunControl, RunEvent, TokenGenerated
from llenvs.traces import Trace
from llenvs.workbench.jobs._background_job import BackgroundJob

__all__ = ["StepValuesJob"]


class StepValuesJob(BackgroundJob):
    """``analyze_trace(trace, backend, params, store=<sidecar of path>)`` on a worker thread.

    The thread starts at once. ``stop`` ends the run at the backend's next token (the
    rollouts that finished are stored); ``stopped`` then says so and ``analysis`` stays None.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        trace: Trace,
        backend: ModelBackend,
        params: AnalysisParams,
        *,
        forced_answer: bool = False,
        schedule: Schedule | None = None,
        session: str = "",
    ) -> None:
        super().__init__(name="llenvs-analyze", start=False, session=session, model=backend)
        self.trace = trace
        """The trace analysed."""
        self.params = params
        """Budget, target width and sampling of the run."""
        self.forced_answer = forced_answer
        """Whether the forced-answer curve is read too."""
        self.schedule = schedule
        """Where the rounds go (None: ``analyze_trace``'s default)."""
        self.store = analysis_path(path)
        """The sidecar the rollouts are read from and appended to."""
        self.model = backend.name
        """The model's name, as the sidecar keys it."""
        self.key = analysis_key(backend.name, params)
        """The key the rollouts are stored under."""
        self.analysis: StepAnalysis | None = None
        """What the run found, once it ended without a stop or an error."""
        self.stopped = False
        """True when the run ended at a stop (finished rounds stored)."""
        self._backend = backend
        self._count = 0
        self._planned = 0
        self._rounds = 0
        self._generated = 0
        self._tokens = 0
        self._live_tokens = 0
        self._lock = threading.Lock()
        self.start()

    def progress(self) -> tuple[int, int]:
        """``(rollouts finished in this run, rollouts planned at most)``."""
        with self._lock:
            return self._count, self._planned

    def tokens(self) -> int:
        """Tokens the backend has generated in this run so far (cut rollouts' too)."""
        with self._lock:
            return self._live_tokens

    def rounds(self) -> int:
        """Rounds of rollouts stored in all, this run's and earlier ones."""
        with self._lock:
            return self._rounds

    def generated(self) -> tuple[int, int]:
        """``(rollouts stored by this run, tokens they generated)``."""
        with self._lock:
            return self._generated, self._tokens

    def tokens_per_second(self) -> float | None:
        """The run's generation speed (its rollouts' tokens over its time), None before any.

        Example:
            >>> job = StepValuesJob.__new__(StepValuesJob)
            >>> job._lock, job._generated, job._tokens = threading.Lock(), 0, 0
            >>> job.tokens_per_second() is None
            True

        """
        rollouts, tokens = self.generated()
        if not rollouts or not tokens:
            return None
        return tokens / max(self.elapsed(), 1e-6)

    def work(self) -> None:
        """Analyse, appending each round to the sidecar; a stop ends it at the next token."""
        analysis = analyze_trace(
            self.trace,
            self._backend,
            self.params,
            store=self.store,
            schedule=self.schedule,
            forced_answer=self.forced_answer,
            control=RunControl(self._observe, self.stop_token),
        )
        if self.stop_requested:
            self.stopped = True
        else:
            self.analysis = analysis

    def _observe(self, event: RunEvent) -> None:
        """Count the run's progress, tokens and stored rounds from its events."""
        with self._lock:
            match event:
                case TokenGenerated():
                    self._live_tokens += 1
                case RolloutsProgress(done=done, planned=planned):
                    self._count, self._planned = done, planned
                case RoundDone(rounds=rounds, rollouts=rollouts):
                    self._rounds = rounds
                    self._generated += len(rollouts)
                    self._tokens += event.tokens
