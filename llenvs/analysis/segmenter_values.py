r"""Does the segmenter change which step mattered? Step values of one trace under several cuts.

A step's importance depends on where the segmenter cut: a move the sentence segmenter finds in
one sentence, a paragraph segmenter may spread over a whole paragraph. ``compare_segmenters``
cuts the trace's response again under each segmenter (``resegmented``: the same response, task
and verdict, its own id), analyses each cut as ``analyze_trace`` does (its rollouts stored in
the trace file's analysis sidecar under the cut's id, so a stopped run resumes), and puts every
cut's values and importances on one axis: **characters of the response**. For each pair of
segmenters (``SegmenterPair``) it says whether their largest moves fall in the same span of
text (the two steps' spans overlap), how wide each is, and Kendall's τ-b of their importances
mapped onto characters (each character carries the importance of the step it lies in). The
result is stored beside the trace (a ``"segmenters"`` line of the analysis sidecar:
``SegmenterValues`` per cut) and read back without sampling again (``read_segmenter_values``).

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

"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from llenvs.analysis.analysis_params import AnalysisParams
from llenvs.analysis.analysis_sidecar import append_segmenter_values, read_segmenter_values
from llenvs.analysis.analyze import analysis_key, analyze_trace
from llenvs.analysis.cost_plan import CostPlan, plan
from llenvs.analysis.cut_values import SegmenterValues
from llenvs.analysis.schedule import Schedule
from llenvs.analysis.step_analysis import StepAnalysis
from llenvs.analysis.token_budget import spent
from llenvs.core.backend import ModelBackend
from llenvs.core.run_control import RunControl
from llenvs.core.segmenters import segmenter_from_spec
from llenvs.core.spec.segmenter_spec import SegmenterSpec
from llenvs.traces.segment_flag import SegmentFlag
from llenvs.traces.segment_record import SegmentRecord
from llenvs.traces.trace import Trace

__all__ = [
    "MAX_SEGMENTERS",
    "SegmenterComparison",
    "SegmenterPair",
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
    digest = hashlib.blake2b(f"{trace.trace_id}/{spec}".encode(), digest_size=16).hexdigest()
    run = replace(trace.run, spec=replace(trace.run.spec, segmenter=SegmenterSpec(spec)))
    return replace(trace, trace_id=digest, segments=segments, run=run)


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

    @classmethod
    def of(cls, first: SegmenterValues, second: SegmenterValues) -> SegmenterPair:
        """The pair's report (see the class)."""
        a, b = first.largest(), second.largest()
        same = None if a is None or b is None else a[0] < b[1] and b[0] < a[1]
        length = max(first.cuts[-1] if first.cuts else 0, second.cuts[-1] if second.cuts else 0)
        x, y = first.on_characters(length), second.on_characters(length)
        both = [(p, q) for p, q in zip(x, y, strict=True) if not (math.isnan(p) or math.isnan(q))]
        tau = _kendall([p for p, _ in both], [q for _, q in both]) if len(both) > 1 else None
        width = (None if a is None else a[1] - a[0], None if b is None else b[1] - b[0])
        return cls(first.spec, second.spec, same, width, tau)

    def summary(self) -> str:
        """One line for people."""
        if self.same_span is None:
            where = "a largest move is unknown"
        elif self.same_span:
            where = "their largest moves fall in the same span of text"
        else:
            where = "their largest moves fall in different spans of text"
        wide = ""
        if None not in self.widths and self.widths[0] != self.widths[1]:
            wide = f" ({self.widths[0]} against {self.widths[1]} characters wide)"
        tau = "τ unknown" if self.tau is None else f"Kendall τ {self.tau:+.2f} on characters"
        return f"{self.first} vs {self.second}: {where}{wide}; {tau}"


def _kendall(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's τ-b (scipy), None where it is undefined (a constant side)."""
    from scipy.stats import kendalltau

    result = kendalltau(x, y)
    tau = float(result.statistic)
    return None if math.isnan(tau) else tau


@dataclass(frozen=True)
class SegmenterComparison:
    """Every segmenter's values of one trace, and each pair's report."""

    trace_id: str
    """The trace compared."""
    segmenters: tuple[SegmenterValues, ...]
    """One per segmenter, in the order asked."""
    stopped: bool = False
    """True when a stop ended the run before every segmenter was analysed."""

    def pairs(self) -> list[SegmenterPair]:
        """Each pair of segmenters' report, in order."""
        found = self.segmenters
        return [SegmenterPair.of(a, b) for i, a in enumerate(found) for b in found[i + 1 :]]


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
    stopped = control.stopped  # the loop ends early only at a stop
    comparison = SegmenterComparison(trace.trace_id, tuple(found), stopped)
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
    store: str | os.PathLike[str], trace_id: str
) -> tuple[dict[str, Any], SegmenterComparison] | None:
    """The last comparison stored for ``trace_id`` (its key and values), or None."""
    found = read_segmenter_values(store, trace_id)
    if not found:
        return None
    key, values = found[-1]
    return key, SegmenterComparison(trace_id, tuple(values))
