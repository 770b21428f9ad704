r"""Does the segmenter change which step mattered? Step values of one trace under several cuts.

A step's importance depends on where the segmenter cut: a move the sentence segmenter finds in
one sentence, a paragraph segmenter may spread over a whole paragraph. ``compare_segmenters``
cuts the trace's response again under each segmenter (``resegmented``: the same response, task
and verdict, its own id), analyses each cut as ``analyze_trace`` does (its rollouts stored in
the trace file's analysis sidecar under the cut's id, so a stopped run resumes), and puts every
cut's values, with their 95% intervals, and importances on one axis: **characters of the
response**. For each pair of segmenters (``SegmenterPair``) it says where their largest moves
fall (the same text, overlapping text, the two sides of one spike, or apart), how wide each is,
Kendall's τ-b of their importances mapped onto characters (each character carries the
importance of the step it lies in), and whether the rollouts can tell: when the intervals of
the values either side of a largest move overlap (``MoveCertainty``), too few rollouts were
made to tell that move from no move, and the pair's summary says so first. The result is
stored beside the trace (a ``"segmenters"`` line of the analysis sidecar: ``SegmenterValues``
per cut) and read back without sampling again (``stored_comparison``, the intervals recounted
from each cut's stored rollouts).

Example:
    >>> from llenvs.traces import SegmentRecord, TaskRecord
    >>> text = "Two cows. So 8 legs.\n\nDone."
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response=text,
    ...           segments=(SegmentRecord(0, 0, len(text), text),))
    >>> [s.text for s in resegmented(t, "sentence").segments]
    ['Two cows. ', 'So 8 legs.\n\n', 'Done.']
    >>> a = SegmenterValues("sentence", (0, 3, 7, 9), (0.2, 0.2, 0.9, 0.9))
    >>> b = SegmenterValues("line:\\n\\n", (0, 7, 9), (0.2, 0.9, 0.9))
    >>> a.largest(), b.largest()
    ((3, 7), (0, 7))
    >>> pair = SegmenterPair.of(a, b)
    >>> pair.same_span, round(pair.tau, 2)
    (True, 0.48)
    >>> print(pair.where())
    their largest moves overlap at characters 3–7 (sentence 3–7, line:\n\n 0–7: 4 against 7 ...

"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from llenvs.analysis._analyze import analysis_key, analyze_trace
from llenvs.analysis._step_analysis import StepAnalysis
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
    "MoveCertainty",
    "SegmenterComparison",
    "SegmenterPair",
    "Spike",
    "compare_segmenters",
    "plan_cuts",
    "resegmented",
    "segmenters_key",
    "stored_comparison",
    "values_of",
]


MAX_SEGMENTERS = 4
"""The most segmenters compared at once."""

CutIntervals = tuple[BoundaryValue | None, ...]
"""One cut's value at each of its boundaries with its interval and rollouts (None: unknown)."""


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
class MoveCertainty:
    """Whether one cut's rollouts tell its largest move from no move.

    Example:
        >>> MoveCertainty(False, (4, 6)).told, MoveCertainty.UNKNOWN.per_boundary
        (False, None)

    """

    told: bool | None
    """True when the 95% intervals of the values either side of the largest move are apart;
    False when they overlap (too few rollouts to tell); None: unknown (no largest move, or the
    rollouts behind it are not stored)."""
    per_boundary: tuple[int, int] | None
    """The fewest and the most rollouts counted at one sampled boundary (None: unknown)."""

    UNKNOWN: ClassVar[MoveCertainty]
    """Nothing known about the rollouts."""

    @property
    def spread(self) -> str:
        """The rollouts per boundary for people: ``4``, ``4–6``, or ``?`` (unknown).

        Example:
            >>> MoveCertainty(None, (4, 6)).spread, MoveCertainty(None, (5, 5)).spread
            ('4–6', '5')

        """
        if self.per_boundary is None:
            return "?"
        fewest, most = self.per_boundary
        return str(fewest) if fewest == most else f"{fewest}–{most}"

    @classmethod
    def of(cls, values: SegmenterValues, intervals: CutIntervals) -> MoveCertainty:
        """The certainty of ``values``' largest move from each cut's ``intervals``."""
        sampled = [b.trials for b in intervals if b is not None and not b.exact]
        counts = (min(sampled), max(sampled)) if sampled else None
        step = values.largest_step()
        if step is None or len(intervals) != len(values.cuts):
            return cls(None, counts)
        before, after = intervals[step], intervals[step + 1]
        if before is None or after is None:
            return cls(None, counts)
        apart = _apart(before.interval, after.interval)
        return cls(apart, counts)


MoveCertainty.UNKNOWN = MoveCertainty(None, None)


def _apart(a: Interval, b: Interval) -> bool:
    return a.high < b.low or b.high < a.low


@dataclass(frozen=True)
class Spike:
    """A character where a cut's value stands above (a peak) or below (a dip) both neighbours."""

    character: int
    """The boundary's character offset."""
    peak: bool
    """True: above both neighbours; False: below both."""

    @property
    def name(self) -> str:
        """``"peak"`` or ``"dip"``."""
        return "peak" if self.peak else "dip"


def _spikes(values: SegmenterValues) -> set[Spike]:
    """The spikes at either end of ``values``' largest move (the move is one of its sides)."""
    step = values.largest_step()
    if step is None:
        return set()
    found = set()
    for boundary in (step, step + 1):
        if not 0 < boundary < len(values.cuts) - 1:
            continue
        here, left, right = (values.values[boundary + d] for d in (0, -1, 1))
        if here is None or left is None or right is None:
            continue
        if here > left and here > right:
            found.add(Spike(values.cuts[boundary], True))
        elif here < left and here < right:
            found.add(Spike(values.cuts[boundary], False))
    return found


@dataclass(frozen=True)
class SegmenterPair:
    """What two segmenters' values say together."""

    first: str
    """One segmenter."""
    second: str
    """The other."""
    same_span: bool | None
    """Whether their largest moves' spans of text overlap (None: either has none)."""
    widths: tuple[int | None, int | None]
    """Each largest move's width in characters (a wider one blurs where the move is)."""
    tau: float | None
    """Kendall's τ-b of their importances on the characters both know (None: too few)."""
    spans: tuple[tuple[int, int] | None, tuple[int, int] | None] = (None, None)
    """Each largest move's span of characters (None: none known)."""
    spike: Spike | None = None
    """A peak or dip both cuts' values have at an end of each one's largest move: their
    largest moves are sides of the same spike, whether or not their spans overlap."""
    certainty: tuple[MoveCertainty, MoveCertainty] = (MoveCertainty.UNKNOWN, MoveCertainty.UNKNOWN)
    """Whether each one's rollouts tell its largest move from no move."""

    @classmethod
    def of(
        cls,
        first: SegmenterValues,
        second: SegmenterValues,
        certainty: tuple[MoveCertainty, MoveCertainty] | None = None,
    ) -> SegmenterPair:
        """The pair's report (see the class); ``certainty`` unknown unless given."""
        a, b = first.largest(), second.largest()
        same = None if a is None or b is None else a[0] < b[1] and b[0] < a[1]
        length = max(first.cuts[-1] if first.cuts else 0, second.cuts[-1] if second.cuts else 0)
        x, y = first.on_characters(length), second.on_characters(length)
        both = [(p, q) for p, q in zip(x, y, strict=True) if not (math.isnan(p) or math.isnan(q))]
        tau = _kendall([p for p, _ in both], [q for _, q in both]) if len(both) > 1 else None
        width = (None if a is None else a[1] - a[0], None if b is None else b[1] - b[0])
        shared = sorted(_spikes(first) & _spikes(second), key=lambda s: s.character)
        spike = shared[0] if shared else None
        known = certainty or (MoveCertainty.UNKNOWN, MoveCertainty.UNKNOWN)
        return cls(first.spec, second.spec, same, width, tau, (a, b), spike, known)

    @property
    def too_few(self) -> bool:
        """Whether either one's rollouts are too few to tell its largest move from no move."""
        return any(c.told is False for c in self.certainty)

    def where(self) -> str:
        """Where their largest moves fall, as the estimates say (intervals aside)."""
        a, b = self.spans
        if self.same_span is None or a is None or b is None:
            return "a largest move is unknown"
        if a == b:
            return f"their largest moves fall on the same text (characters {a[0]}–{a[1]})"
        spans = f"{self.first} {a[0]}–{a[1]}, {self.second} {b[0]}–{b[1]}"
        if self.same_span:
            both = f"{max(a[0], b[0])}–{min(a[1], b[1])}"
            wide = f"{a[1] - a[0]} against {b[1] - b[0]} characters wide"
            return f"their largest moves overlap at characters {both} ({spans}: {wide})"
        if self.spike is not None:
            return (
                f"the same {self.spike.name} at character {self.spike.character}, their "
                f"largest moves its two sides ({spans})"
            )
        return f"their largest moves fall in different spans of text ({spans})"

    def summary(self) -> str:
        """One line for people: too few rollouts to tell first, where the moves fall, τ."""
        tau = "τ unknown" if self.tau is None else f"Kendall τ {self.tau:+.2f} on characters"
        head = f"{self.first} vs {self.second}: "
        if not self.too_few:
            return f"{head}{self.where()}; {tau}"
        unsure = [
            name
            for name, c in zip((self.first, self.second), self.certainty, strict=True)
            if c.told is False
        ]
        whose = (
            "each one's largest move" if len(unsure) == 2 else f"the largest move of {unsure[0]}"
        )
        counts = [c.per_boundary for c in self.certainty if c.per_boundary is not None]
        per = MoveCertainty(None, (min(c[0] for c in counts), max(c[1] for c in counts))).spread
        return (
            f"{head}too few rollouts to tell, {per} per boundary: the 95% intervals either side "
            f"of {whose} overlap. As estimated: {self.where()}; {tau}"
        )


def _kendall(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's τ-b (scipy), None where it is undefined (a constant side)."""
    from scipy.stats import kendalltau

    result = kendalltau(x, y)
    tau = float(result.statistic)
    return None if math.isnan(tau) else tau


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
