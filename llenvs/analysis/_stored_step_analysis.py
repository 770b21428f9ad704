"""What the analysis sidecar holds for a trace, read back as a ``StepAnalysis``: no model needed.

``stored_step_analysis`` computes the step values and importances from the stored rollouts
with the engine's own pieces (``boundary_values``, ``exact_value``, ``step_importances``), as
``analyze_trace`` does at the end of a run; ``published_step_analysis`` does the same from a
study's published tallies (``PublishedValues``); ``stored_forced_answers`` reads the
forced-answer curve a model left. Nothing is generated and no backend is built.

Example:
    >>> import tempfile, os
    >>> from llenvs.analysis.sidecar._analysis_sidecar import append_rollouts
    >>> from llenvs.analysis.sampling._rollout import Rollout
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
    >>> trace = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A.",
    ...               segments=(SegmentRecord(0, 0, 2, "A."),))
    >>> store = os.path.join(tempfile.mkdtemp(), "t.analysis.jsonl")
    >>> done = [Rollout(b, n, 1, b == 1 or n == 0, None, 3) for b in (0, 1) for n in range(4)]
    >>> append_rollouts(store, trace.trace_id, {"model": "m", "seed": 0}, 0, done)
    >>> a = stored_step_analysis(trace, store, {"model": "m", "seed": 0})
    >>> [(v.boundary, v.value) for v in a.values], a.resumed, a.rounds
    ([(0, 0.25), (1, 1.0)], 8, 1)

"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from llenvs.analysis._step_analysis import StepAnalysis
from llenvs.analysis.sampling import ForcedAnswer, exact_outcome, sampled_boundaries
from llenvs.analysis.sidecar import AnalysisKind, PublishedValues, read_analysis, stored_keys
from llenvs.analysis.statistics import boundary_values, exact_value, step_importances
from llenvs.core import SegmentedEnvironment
from llenvs.evaluation.branching import trace_environment
from llenvs.traces.records import Trace

__all__ = ["published_step_analysis", "stored_forced_answers", "stored_step_analysis"]


def stored_step_analysis(
    trace: Trace,
    store: str | os.PathLike[str],
    key: Mapping[str, Any],
    environment: SegmentedEnvironment | None = None,
) -> StepAnalysis:
    """The step values and importances of ``trace`` stored in ``store`` under ``key``.

    ``key`` is as the sidecar holds it (``stored_keys``); its ``seed`` (0 when absent) seeds the
    importances' bootstrap, as in the run. The end of an ended trace is its own verdict, judged
    by ``environment`` (default ``trace_environment(trace)``), built only for an ended trace.
    The forced-answer curve is not read here (``stored_forced_answers``).

    Example:
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> [v.trials for v in stored_step_analysis(t, "/no/such.analysis.jsonl", {}).values]
        [0]

    """
    wanted = dict(key)
    stored = read_analysis(store, trace.trace_id, wanted)
    chosen = sampled_boundaries(trace)
    rollouts = [r for r in stored.rollouts if r.boundary in set(chosen)]
    values = boundary_values(rollouts, chosen)
    count = len(trace.segments)
    if count > 0 and trace.segments[-1].terminal:
        env = environment if environment is not None else trace_environment(trace)
        values.append(exact_value(count, *exact_outcome(trace, env)))
    seed = wanted.get("seed", 0)
    return StepAnalysis(
        trace.trace_id,
        wanted,
        tuple(values),
        tuple(step_importances(values, seed=seed if isinstance(seed, int) else 0)),
        None,
        tuple(rollouts),
        len(rollouts),
        stored.rounds,
    )


def published_step_analysis(trace: Trace, published: PublishedValues) -> StepAnalysis:
    """The step values and importances of ``trace`` from a study's ``published`` tallies.

    The importances are ours (``step_importances`` of the published tallies, seed 0), so they
    compare with those of our rollouts; the study's own measures stay in
    ``published.measures``. After the last segment of an ended trace, its own verdict.

    Example:
        >>> from llenvs.analysis.sidecar._published_values import PublishedTally
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A.",
        ...           segments=(SegmentRecord(0, 0, 2, "A.", terminal=True),), success=True)
        >>> p = PublishedValues("s", "S", "m", (PublishedTally(0, 30, 60, True),), {}, {})
        >>> a = published_step_analysis(t, p)
        >>> [(v.boundary, v.value, v.exact) for v in a.values], a.key["published"]
        ([(0, 0.5, False), (1, 1.0, True)], 's')

    """
    values = published.values()
    count = len(trace.segments)
    if count > 0 and trace.segments[-1].terminal and trace.success is not None:
        answer = trace.metadata.get("answer")
        values.append(exact_value(count, trace.success, None if answer is None else str(answer)))
    return StepAnalysis(
        trace.trace_id,
        published.key,
        tuple(values),
        tuple(step_importances(values, seed=0)),
        None,
        (),
    )


def stored_forced_answers(
    store: str | os.PathLike[str], trace_id: str, model: str
) -> tuple[ForcedAnswer, ...] | None:
    """The forced-answer curve last stored for ``trace_id`` by ``model``, or None.

    Example:
        >>> stored_forced_answers("/no/such.analysis.jsonl", "t", "m") is None
        True

    """
    keys = [
        k
        for k in stored_keys(store, trace_id, AnalysisKind.FORCED_ANSWERS)
        if k.get("model") == model
    ]
    if not keys:
        return None
    return read_analysis(store, trace_id, keys[-1]).forced_answers
