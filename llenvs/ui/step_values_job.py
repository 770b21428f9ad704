"""A step-value analysis running in the background, and the results the sidecar holds.

``StepValuesJob`` runs the library's ``analyze_trace`` on a worker thread (``BackgroundJob``),
so the page stays live while rollouts are generated: the page reads how far it got
(``progress``: planned from the start, each rollout counted as it finishes; ``tokens``: every
token as the backend generates it, which moves inside a batch call whose rollouts all come back
at its end; ``rounds``) and asks it to stop (``stop``), which the backend reads after its next
token: the calls in progress end there, the rollouts that finished are stored, and every
finished round stays in the trace file's ``*.analysis.jsonl`` sidecar, so a later run with the
same model and sampling fields resumes from them. A failure is kept (``error``) for the page to
show.

``stored_keys`` lists what the sidecar holds for a trace (one key per model and sampling
fields) and ``stored_analysis`` reads one of them back as a ``StepAnalysis``, generating
nothing.

Example:
    >>> import tempfile, pathlib
    >>> from llenvs.core import SegmentedEnvironment
    >>> from llenvs.core.registry import environment_registry
    >>> from llenvs.evaluation import replay_trace
    >>> from llenvs.inference import get_backend
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym",
    ...                                 size=100, seed=42)
    >>> trace = replay_trace(SegmentedEnvironment(base, "sentence"), 0,
    ...                      "Count. So 8. <answer>8</answer>", model="scripted")
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.jsonl"
    >>> backend = get_backend("scripted", outputs=["Count. So 100. <answer>100</answer>"])
    >>> job = StepValuesJob(path, trace, backend, AnalysisParams(budget=8))
    >>> job.wait(60), job.error, job.progress(), job.rounds(), job.tokens() > 0
    (True, None, (8, 8), 1, True)
    >>> [v.value for v in job.analysis.values]
    [1.0, 1.0, 0.0]
    >>> [key["model"] for key in stored_keys(job.store, trace.trace_id)]
    ['scripted']
    >>> again = stored_analysis(trace, job.store, job.key)
    >>> [v.value for v in again.values], again.resumed
    ([1.0, 1.0, 0.0], 8)

"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from llenvs.analysis import (
    AnalysisParams,
    ForcedAnswer,
    Rollout,
    StepAnalysis,
    analysis_key,
    analysis_path,
    analyze_trace,
    read_analysis,
)
from llenvs.core.backend import Generation, GenerationRequest, ModelBackend
from llenvs.core.segmented_environment import SegmentedEnvironment
from llenvs.evaluation import trace_environment
from llenvs.traces import Trace
from llenvs.ui.background_job import BackgroundJob

__all__ = ["StepValuesJob", "stored_analysis", "stored_forced_answers", "stored_keys"]


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
    ) -> None:
        super().__init__(name="llenvs-analyze", start=False)
        self.trace = trace
        """The trace analysed."""
        self.params = params
        """Budget, target width and sampling of the run."""
        self.forced_answer = forced_answer
        """Whether the forced-answer curve is read too."""
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
            forced_answer=self.forced_answer,
            on_progress=self._advance,
            on_round=self._stored,
            should_stop=lambda: self.stop_requested,
            on_token=self._token,
        )
        if self.stop_requested:
            self.stopped = True
        else:
            self.analysis = analysis

    def _advance(self, done: int, planned: int) -> None:
        with self._lock:
            self._count, self._planned = done, planned

    def _token(self) -> None:
        with self._lock:
            self._live_tokens += 1

    def _stored(self, rounds: int, rollouts: Sequence[Rollout]) -> None:
        with self._lock:
            self._rounds = rounds
            self._generated += len(rollouts)
            self._tokens += sum(r.tokens for r in rollouts)


def stored_keys(
    store: str | os.PathLike[str], trace_id: str, kind: str = "rollouts"
) -> list[dict[str, Any]]:
    """The keys the sidecar ``store`` holds ``kind`` records of ``trace_id`` under, oldest first.

    ``kind`` is ``"rollouts"`` or ``"forced_answers"``. Lines that cannot be read are passed
    over here (``read_analysis`` names them when the results are read).

    Example:
        >>> stored_keys("/no/such.analysis.jsonl", "t")
        []

    """
    found: list[dict[str, Any]] = []
    try:
        handle = open(store, "rb")
    except FileNotFoundError:
        return found
    with handle:
        for raw in handle:
            try:
                data = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(data, dict) or data.get("trace_id") != trace_id:
                continue
            key = data.get("key")
            if data.get("kind") == kind and isinstance(key, dict) and key not in found:
                found.append(key)
    return found


class _NothingGenerated:
    """A backend that only names the model: reading stored results generates nothing."""

    def __init__(self, name: str) -> None:
        self.name = name

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Generation]:
        raise RuntimeError("reading stored step values must not generate")


def stored_analysis(
    trace: Trace,
    store: str | os.PathLike[str],
    key: Mapping[str, Any],
    environment: SegmentedEnvironment | None = None,
) -> StepAnalysis:
    """The step values and importances of ``trace`` stored under ``key``, generating nothing.

    ``analyze_trace`` reads them back with a budget of 0, so the numbers are the engine's own;
    ``environment`` (default ``trace_environment(trace)``) judges the end of an ended trace.

    Example:
        >>> from llenvs.traces import TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> [v.trials for v in stored_analysis(t, "/no/such.analysis.jsonl", {"model": "m"}).values]
        [0]

    """
    fields = {k: key[k] for k in ("temperature", "top_p", "max_tokens", "seed") if k in key}
    params = AnalysisParams(budget=0, **fields)
    env = environment if environment is not None else trace_environment(trace)
    return analyze_trace(
        trace,
        _NothingGenerated(str(key.get("model", ""))),
        params,
        store=Path(store),
        environment=env,
    )


def stored_forced_answers(
    store: str | os.PathLike[str], trace_id: str, model: str
) -> tuple[ForcedAnswer, ...] | None:
    """The forced-answer curve last stored for ``trace_id`` by ``model``, or None.

    Example:
        >>> stored_forced_answers("/no/such.analysis.jsonl", "t", "m") is None
        True

    """
    keys = [k for k in stored_keys(store, trace_id, "forced_answers") if k.get("model") == model]
    if not keys:
        return None
    return read_analysis(store, trace_id, keys[-1]).forced_answers
