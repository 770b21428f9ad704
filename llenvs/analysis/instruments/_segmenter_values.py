r"""Does the segmenter change which step mattered? Step values of one trace under several cuts.

A step's importance depends on where the segmenter cut: a move the sentence segmenter finds in
one sentence, a paragraph segmenter may spread over a whole paragraph. ``compare_segmenters``
cuts the trace's response again under each segmenter (``resegmented``: the same response, task
and verdict, its own id), analyses each cut as ``analyze_trace`` does (its rollouts stored in
the trace file's analysis sidecar under the cut's id, so a stopped run resumes), and puts every
cut's values, with their 95% intervals, and importances on one axis: **characters of the
response**. For each pair of segmenters it reports what their values say together
(``SegmenterPair``, with ``MoveCertainty``: whether the rollouts can tell a largest move from
no move). The result is stored beside the trace (a ``"segmenters"`` line of the analysis
sidecar: ``SegmenterValues`` per cut) and read back without sampling again
(``stored_comparison``, the intervals recounted from each cut's stored rollouts).

Example:
    >>> from llenvs.traces import SegmentRecord, TaskRecord
    >>> text = "Two cows. So 8 legs.\n\nDone."
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response=text,
    ...           segments=(SegmentRecord(0, 0, len(text), text),))
    >>> [s.text for s in resegmented(t, "sentence").segments]
    ['Two cows. ', 'So 8 legs.\n\n', 'Done.']

"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from llenvs.analysis._analyze import analysis_key, analyze_trace
from llenvs.analysis._step_analysis import StepAnalysis
from llenvs.analysis.instruments._segmenter_pair import CutIntervals, MoveCertainty, SegmenterPair
from llenvs.analysis.sampling import AnalysisParams, CostPlan, plan, spent
from llenvs.analysis.sidecar import (
    SegmenterValues,
    append_segmenter_values,
    read_analysis,
    read_segmenter_values,
)
from llenvs.analysis.statistics import BoundaryValue, Interval, Schedule, boundary_values
from llenvs.core import ModelBackend, RunControl
from llenvs.core.segmenters import SegmenterSpec, segmenter_from_spec
from llenvs.traces.records import SegmentFlag, SegmentRecord, Trace

__all__ = [
    "MAX_SEGMENTERS",
    "SegmenterComparison",
    "compare_segmenters",
    "plan_cuts",
    "resegmented",
    "segmenters_key",
    "stored_comparison",
    "values_of",
]


MAX_SEGMENTERS = 4
"""The most segmenters compared at once."""


def resegmented(trace: Trace, spec: str) -> Trace:
    """``trace`` cut by the segmenter ``spec``: its response, task, run and verdict, new segments.

    The id is derived from the trace's and the spec (the same every time, another for each
    spec), so each cut's rollouts are stored apart. The segments keep no token ids (a rollout
    reads the text again); the last one ends the trace when the trace's last one did. A trace
    with injected feedback cannot be cut again (the feedback sits between two of its segments).
    """
    if any(SegmentFlag.FEEDBACK_AFTER in s.flags for s in trace.segments):
        raise ValueError("a trace with injected feedback cannot be cut by another segmenter")
    spans = segmenter_from_spec(spec).spans(trace.response)
    ended = bool(trace.segments) and trace.segments[-1].terminal
    segments = tuple(
        SegmentRecord(
            index, start, end, trace.response[start:end], terminal=ended and index == len(spans) - 1
        )
        for index, (start, end) in enumerate(spans)
    )
    run = replace(trace.run, spec=replace(trace.run.spec, segmenter=SegmenterSpec(spec)))
    return replace(trace, trace_id=_cut_id(trace.trace_id, spec), segments=segments, run=run)


def _cut_id(trace_id: str, spec: str) -> str:
    """The id of the cut of ``trace_id`` by ``spec``: its rollouts are stored under it."""
    return hashlib.blake2b(f"{trace_id}/{spec}".encode(), digest_size=16).hexdigest()


@dataclass(frozen=True)
class SegmenterComparison:
    """Every segmenter's values of one trace, with their intervals, and each pair's report."""

    trace_id: str
    """The trace compared."""
    segmenters: tuple[SegmenterValues, ...]
    """One per segmenter, in the order asked."""
    stopped: bool = False
    """True when a stop ended the run before every segmenter was analysed."""
    intervals: tuple[CutIntervals, ...] = ()
    """Per segmenter, each cut's value with its 95% interval and rollouts (None: unknown);
    empty when nothing is known of the rollouts behind the values."""

    def cut_intervals(self, number: int) -> CutIntervals:
        """Segmenter ``number``'s boundary values with their intervals (all None: unknown)."""
        if number < len(self.intervals):
            return self.intervals[number]
        return (None,) * len(self.segmenters[number].cuts)

    def certainty(self, number: int) -> MoveCertainty:
        """Whether segmenter ``number``'s rollouts tell its largest move from no move."""
        return MoveCertainty.of(self.segmenters[number], self.cut_intervals(number))

    def pairs(self) -> list[SegmenterPair]:
        """Each pair of segmenters' report, in order."""
        found = self.segmenters
        return [
            SegmenterPair.of(a, b, (self.certainty(i), self.certainty(j)))
            for i, a in enumerate(found)
            for j, b in enumerate(found)
            if j > i
        ]


def plan_cuts(
    trace: Trace, specs: Sequence[str], params: AnalysisParams
) -> list[tuple[str, CostPlan]]:
    """The planned cost of each segmenter's cut (``plan``), before anything runs.

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="One. Two.",
        ...           segments=(SegmentRecord(0, 0, 9, "One. Two."),))
        >>> [(spec, cost.boundaries) for spec, cost in plan_cuts(t, ["sentence", "line"],
        ...                                                       AnalysisParams(budget=8))]
        [('sentence', 3), ('line', 2)]

    """
    return [(spec, plan(resegmented(trace, spec), params)) for spec in specs]


def segmenters_key(key: Mapping[str, Any], specs: Sequence[str]) -> dict[str, Any]:
    """The sidecar key of a comparison: the rollouts' key and the segmenters compared.

    Example:
        >>> segmenters_key({"model": "m"}, ["sentence", "line"])
        {'model': 'm', 'segmenters': ['sentence', 'line']}

    """
    return {**key, "segmenters": list(specs)}


def compare_segmenters(
    trace: Trace,
    specs: Sequence[str],
    backend: ModelBackend,
    params: AnalysisParams,
    *,
    store: str | os.PathLike[str] | None = None,
    schedule: Callable[[], Schedule] | None = None,
    control: RunControl | None = None,
) -> SegmenterComparison:
    """Step values of ``trace`` under each segmenter of ``specs``, on its characters.

    Each cut is analysed by ``analyze_trace`` with ``params`` (a token budget is each cut's
    own) and ``schedule()`` (default: the default schedule), its rollouts stored in ``store``
    under the cut's id; once all are done, the comparison is stored there too. A stop ends the
    run between rollouts: the cuts analysed so far are returned, marked ``stopped``, and not
    stored as a comparison (the rollouts are: the next run resumes from them).
    """
    control = RunControl() if control is None else control
    found = []
    intervals = []
    for spec in specs:
        if control.stopped:
            break
        cut = resegmented(trace, spec)
        analysis = analyze_trace(
            cut,
            backend,
            params,
            store=store,
            schedule=None if schedule is None else schedule(),
            control=control,
        )
        found.append(values_of(spec, cut, analysis))
        by_boundary = {v.boundary: v for v in analysis.values}
        intervals.append(tuple(by_boundary.get(b) for b in range(len(cut.segments) + 1)))
    stopped = control.stopped  # the loop ends early only at a stop
    comparison = SegmenterComparison(trace.trace_id, tuple(found), stopped, tuple(intervals))
    if store is not None and not stopped:
        key = segmenters_key(analysis_key(backend.name, params), specs)
        append_segmenter_values(store, trace.trace_id, key, found)
    return comparison


def values_of(spec: str, cut: Trace, analysis: StepAnalysis) -> SegmenterValues:
    """``analysis`` of the cut ``cut`` (by ``spec``) on the characters of its response."""
    cuts = (0, *(s.end for s in cut.segments))
    by_boundary = {v.boundary: v.value for v in analysis.values}
    values = tuple(by_boundary.get(b) for b in range(len(cuts)))
    return SegmenterValues(spec, cuts, values, len(analysis.rollouts), spent(analysis.rollouts))


def stored_comparison(
    store: str | os.PathLike[str], trace_id: str, specs: Sequence[str] | None = None
) -> tuple[dict[str, Any], SegmenterComparison] | None:
    """The last comparison stored for ``trace_id`` (of exactly ``specs`` when given), or None.

    Its key and values, with each cut's intervals recounted from the cut's stored rollouts
    (a boundary whose rollouts are gone, or no longer give the stored value, has none).
    """
    found = read_segmenter_values(store, trace_id)
    if specs is not None:
        found = [(k, v) for k, v in found if [s.spec for s in v] == list(specs)]
    if not found:
        return None
    key, values = found[-1]
    rollouts_key = {k: v for k, v in key.items() if k != "segmenters"}
    intervals = tuple(_stored_intervals(store, trace_id, rollouts_key, v) for v in values)
    return key, SegmenterComparison(trace_id, tuple(values), intervals=intervals)


def _stored_intervals(
    store: str | os.PathLike[str],
    trace_id: str,
    key: Mapping[str, Any],
    values: SegmenterValues,
) -> CutIntervals:
    """Each boundary of a stored cut with the interval its stored rollouts give."""
    rollouts = read_analysis(store, _cut_id(trace_id, values.spec), key).rollouts
    sampled = sorted({r.boundary for r in rollouts})
    counted = {v.boundary: v for v in boundary_values(rollouts, sampled)}
    last = len(values.cuts) - 1
    value = values.values[last] if values.values else None
    if sampled and last not in counted and value in (0.0, 1.0):  # an ended trace's verdict
        counted[last] = BoundaryValue(last, 0, 0, value, Interval(value, value), exact=True)
    return tuple(
        found if found is not None and _same(found.value, value) else None
        for found, value in ((counted.get(b), v) for b, v in enumerate(values.values))
    )


def _same(counted: float | None, stored: float | None) -> bool:
    """Whether a recounted value is the stored one (else the line was not made from them)."""
    return counted is not None and stored is not None and math.isclose(counted, stored)
