"""A PRM against step labels, point estimates: localisation accuracy, ProcessBench F1, AUROC.

ProcessBench's measures: the predicted first error is the first step scored below the
threshold (-1 when none); its accuracy on the traces with a labelled error and on those
without, and their harmonic mean (F1). The step AUROC ranks ``1 - score`` of the labelled steps:
positive = labelled -1, negative = labelled 0 or 1; ties count one half.

Example:
    >>> m = prm_metrics({"a": {0: 1, 1: -1}, "b": {0: 1}}, {"a": [0.9, 0.1], "b": [0.8]})
    >>> m.accuracy, m.accuracy_error, m.accuracy_correct, m.f1, m.auroc
    (1.0, 1.0, 1.0, 1.0, 1.0)

"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from llenvs.rewards.agreement._compared_trace import ComparedTrace, Scores, compared_traces
from llenvs.rewards.agreement._first_error_prediction import THRESHOLD, Labelling
from llenvs.rewards.agreement._step_auroc import auroc

__all__ = ["ComparedCounts", "PRMMetrics", "metrics_of", "prm_metrics"]


@dataclass(frozen=True)
class ComparedCounts:
    """What a PRM and a labeller were compared on: the counts its measures come with."""

    traces: int
    """Traces both labelled and scored."""
    traces_with_error: int
    """Those with a step labelled -1."""
    steps: int
    """Labelled steps the PRM rated (the AUROC's)."""
    first_errors: int
    """Of those, the ones labelled -1 (the AUROC's positives)."""


@dataclass(frozen=True)
class PRMMetrics(ComparedCounts):
    """A PRM's agreement with one labeller's labels, as numbers (NaN: nothing to measure)."""

    accuracy: float
    """First-error localisation accuracy on all the traces."""
    accuracy_error: float
    """The same on the traces with an error."""
    accuracy_correct: float
    """The same on the traces without one."""
    f1: float
    """ProcessBench's F1: the harmonic mean of the last two (0 when both are 0)."""
    auroc: float
    """Step AUROC of ``1 - score`` for "this labelled step is wrong"."""


def prm_metrics(labels: Labelling, scores: Scores, threshold: float = THRESHOLD) -> PRMMetrics:
    """The metrics of ``scores`` (trace id -> step scores) against ``labels``.

    Example:
        >>> m = prm_metrics({"a": {0: -1}, "b": {0: 1}}, {"a": [0.5], "b": [0.5]})
        >>> m.accuracy, m.accuracy_error, m.accuracy_correct, m.f1, m.auroc
        (0.5, 0.0, 1.0, 0.0, 0.5)

    """
    return metrics_of(compared_traces(labels, scores, threshold))


def metrics_of(traces: Sequence[ComparedTrace]) -> PRMMetrics:
    """The metrics of the compared traces (a bootstrap resample, say).

    Example:
        >>> metrics_of([]).f1
        nan

    """
    with_error = [t for t in traces if t.first_error != -1]
    without = [t for t in traces if t.first_error == -1]
    hits_error = sum(t.hit for t in with_error)
    hits_correct = sum(t.hit for t in without)
    accuracy_error = hits_error / len(with_error) if with_error else math.nan
    accuracy_correct = hits_correct / len(without) if without else math.nan
    total = accuracy_error + accuracy_correct
    f1 = 2 * accuracy_error * accuracy_correct / total if total else 0.0
    positives = [v for t in traces for v in t.positives]
    negatives = [v for t in traces for v in t.negatives]
    return PRMMetrics(
        traces=len(traces),
        traces_with_error=len(with_error),
        steps=len(positives) + len(negatives),
        first_errors=len(positives),
        accuracy=(hits_error + hits_correct) / len(traces) if traces else math.nan,
        accuracy_error=accuracy_error,
        accuracy_correct=accuracy_correct,
        f1=f1,
        auroc=auroc(positives, negatives),
    )
