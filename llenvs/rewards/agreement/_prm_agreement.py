"""A PRM against a labeller: ProcessBench's measures with intervals, calibration, disagreements.

The point estimates are ``prm_metrics``'s; each has a percentile-bootstrap interval over the
traces (resampled with replacement, seeded: the same input and seed give the same intervals).

Example:
    >>> labels = {"a": {0: 1, 1: -1}, "b": {0: 1, 1: 1}, "c": {0: -1}}
    >>> scores = {"a": [0.9, 0.2], "b": [0.8, 0.7], "c": [0.6]}
    >>> agreement = prm_agreement(labels, scores, resamples=200)
    >>> agreement.traces, agreement.f1.value, agreement.accuracy.value
    (3, 0.6666666666666666, 0.6666666666666666)
    >>> [(d.trace_id, d.segment) for d in agreement.disagreements]
    [('c', 0)]

"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from llenvs.rewards.agreement._bootstrap_estimate import LEVEL, RESAMPLES, Estimate, bootstrap
from llenvs.rewards.agreement._calibration_bin import BINS, CalibrationBin, calibration_table
from llenvs.rewards.agreement._compared_trace import ComparedTrace, Scores, compared_traces
from llenvs.rewards.agreement._first_error_prediction import THRESHOLD, Labelling
from llenvs.rewards.agreement._prm_metrics import ComparedCounts, metrics_of
from llenvs.rewards.agreement._step_disagreement import StepDisagreement, prm_disagreements

__all__ = ["PRMAgreement", "prm_agreement"]


@dataclass(frozen=True)
class PRMAgreement(ComparedCounts):
    """How a PRM's step scores agree with one labeller's step labels."""

    auroc: Estimate
    """Step AUROC: positive = labelled -1, predictor ``1 - score``, ties one half."""
    f1: Estimate
    """ProcessBench's F1: harmonic mean of the next two but one."""
    accuracy: Estimate
    """First-error localisation accuracy, all traces."""
    accuracy_error: Estimate
    """The same on the traces with an error."""
    accuracy_correct: Estimate
    """The same on the traces without one."""
    calibration: tuple[CalibrationBin, ...]
    """Score bins against the share of their steps labelled right."""
    disagreements: tuple[StepDisagreement, ...]
    """Steps scored below the threshold but labelled >= 0, or not below it but labelled -1."""

    def as_record(self) -> dict[str, Any]:
        """The agreement for JSON (NaN as None).

        Example:
            >>> sorted(prm_agreement({}, {}).as_record())[:3]
            ['accuracy', 'accuracy_correct', 'accuracy_error']

        """
        return {
            "traces": self.traces,
            "traces_with_error": self.traces_with_error,
            "steps": self.steps,
            "first_errors": self.first_errors,
            "auroc": self.auroc.as_record(),
            "f1": self.f1.as_record(),
            "accuracy": self.accuracy.as_record(),
            "accuracy_error": self.accuracy_error.as_record(),
            "accuracy_correct": self.accuracy_correct.as_record(),
            "calibration": [b.as_record() for b in self.calibration],
            "disagreements": [d.as_record() for d in self.disagreements],
        }


def prm_agreement(
    labels: Labelling,
    scores: Scores,
    *,
    threshold: float = THRESHOLD,
    resamples: int = RESAMPLES,
    seed: int = 0,
    level: float = LEVEL,
    bins: int = BINS,
) -> PRMAgreement:
    """``scores`` (trace id -> step scores) against ``labels`` (trace id -> segment -> label).

    Only the traces both labelled and scored count (``compared_traces``).

    Example:
        >>> a = prm_agreement({"a": {0: -1}, "b": {0: 1}}, {"a": [0.5], "b": [0.5]}, seed=3)
        >>> a.auroc.value, a.f1.value, a == prm_agreement(
        ...     {"a": {0: -1}, "b": {0: 1}}, {"a": [0.5], "b": [0.5]}, seed=3)
        (0.5, 0.0, True)

    """
    traces = compared_traces(labels, scores, threshold)
    point = metrics_of(traces)
    auroc, f1, accuracy, accuracy_error, accuracy_correct = bootstrap(
        traces, _numbers, resamples=resamples, seed=seed, level=level
    )
    compared = {t.trace_id for t in traces}
    kept = {trace_id: steps for trace_id, steps in labels.items() if trace_id in compared}
    return PRMAgreement(
        traces=point.traces,
        traces_with_error=point.traces_with_error,
        steps=point.steps,
        first_errors=point.first_errors,
        auroc=auroc,
        f1=f1,
        accuracy=accuracy,
        accuracy_error=accuracy_error,
        accuracy_correct=accuracy_correct,
        calibration=calibration_table(kept, scores, bins),
        disagreements=tuple(prm_disagreements(kept, scores, threshold)),
    )


def _numbers(traces: Sequence[ComparedTrace]) -> tuple[float, ...]:
    """The five measures of a resample, in ``PRMAgreement``'s order."""
    m = metrics_of(traces)
    return (m.auroc, m.f1, m.accuracy, m.accuracy_error, m.accuracy_correct)
