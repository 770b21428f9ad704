"""Scoring a method's calls of moved steps against a truth, in measures that cannot flatter.

A method states, for every step of a trace, its chance that the step moved the value by δ or
more (``StepAnalysis.moved``) and calls the step moved when that chance is above a threshold
(what the app and the CLI show). Given each step's true change Δ (a published curve, a long
sweep), ``score_calls`` says how good those calls and chances are:

- with a margin m, the positives P are the steps with ``|Δ| >= δ + m`` and the negatives N those
  with ``|Δ| < δ - m``; a step in between is too close to δ for either answer to be wrong, and
  is left out. Recall is the share of P called; precision the share of called steps in P ∪ N
  that are in P.
- calibration, against ``|Δ| >= δ`` (within ``MOVE_TOLERANCE``), only over the steps stated in
  ``CALIBRATED``: where calls are made. Nearly every step of a long trace is stated near 0 and
  did not move, so an error over all steps is near 0 for any method, a constant forecast at the
  base rate included; the range leaves that out. ``brier_skill`` compares the Brier score over
  every step with that constant forecast's (above 0: better than it).
- confident misses: the share of P stated below ``CONFIDENT``, moves the method was sure
  were not there.

``trace_interval`` gives any of these a 95% interval by resampling whole traces (steps of one
trace are not independent).

Example:
    >>> calls = [StepCall("a", 0, 0.4, 0.9, True), StepCall("a", 1, 0.0, 0.02, False),
    ...          StepCall("b", 0, -0.3, 0.01, False), StepCall("b", 1, 0.21, 0.6, True)]
    >>> s = score_calls(calls)
    >>> s.positives, s.negatives, s.recall, s.precision, s.confident_misses
    (2, 1, 0.5, 1.0, 0.5)

"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from llenvs.analysis.statistics._changepoints import MOVE_DELTA
from llenvs.analysis.statistics._interval import BOOTSTRAP_RESAMPLES, Interval

__all__ = [
    "CALIBRATED",
    "CALIBRATION_BINS",
    "CONFIDENT",
    "MARGIN",
    "MOVE_TOLERANCE",
    "CallScores",
    "StepCall",
    "moved_by",
    "score_calls",
    "trace_interval",
]

MOVE_TOLERANCE = 1e-9
"""How far below δ a change may fall and still be a move of δ: float noise, so that 0.67 → 0.87
is a move of 0.2 as 0.92 → 0.72 is."""

MARGIN = 0.05
"""The default margin m around δ: steps with ``δ - m <= |Δ| < δ + m`` are neither positives
nor negatives."""

CONFIDENT = 0.05
"""A stated chance below this is a confident "it did not move"."""

CALIBRATED = (0.05, 0.95)
"""The stated chances over which calibration is measured (both ends in): where calls are made."""

CALIBRATION_BINS = (0.05, 0.2, 0.4, 0.6, 0.8, 0.95)
"""The bins of stated chance within ``CALIBRATED`` (the last one closed)."""


def moved_by(delta: float, size: float = MOVE_DELTA) -> bool:
    """Whether a change of ``delta`` is a move of ``size`` or more (within ``MOVE_TOLERANCE``).

    Example:
        >>> moved_by(0.87 - 0.67), moved_by(0.72 - 0.92), moved_by(0.19)
        (True, True, False)

    """
    return abs(delta) >= size - MOVE_TOLERANCE


@dataclass(frozen=True)
class StepCall:
    """One step of one trace: its true change, the method's stated chance, and its call."""

    trace: str
    """The trace it belongs to (the unit of resampling)."""
    step: int
    """Its index in the trace."""
    delta: float
    """The true change of value across it, ``v_{i+1} - v_i``."""
    chance: float
    """The method's stated chance that ``|Δ| >= δ``."""
    called: bool
    """Whether the method calls it moved (what it shows)."""


@dataclass(frozen=True)
class CallScores:
    """How good a method's calls and chances are (see the module); NaN where undefined."""

    steps: int
    """Steps scored."""
    positives: int
    """Steps with ``|Δ| >= δ + m``."""
    negatives: int
    """Steps with ``|Δ| < δ - m``."""
    called: int
    """Steps called moved (of all steps)."""
    recall: float
    """Share of the positives called."""
    precision: float
    """Share of the called steps among positives and negatives that are positives."""
    ece: float
    """Expected calibration error over the steps stated in ``CALIBRATED``, against
    ``|Δ| >= δ``: the bins' gaps between mean stated chance and share moved, weighted by steps."""
    calibrated_steps: int
    """Steps stated in ``CALIBRATED`` (the ECE's support)."""
    brier_skill: float
    """``1 - Brier / Brier of the base rate``, over every step: above 0, the chances beat a
    constant forecast at the share of steps that moved."""
    confident_misses: float
    """Share of the positives stated below ``CONFIDENT``."""


def score_calls(
    calls: Sequence[StepCall], margin: float = MARGIN, size: float = MOVE_DELTA
) -> CallScores:
    """The scores of ``calls`` with margin ``margin`` around a move of ``size`` (the module's).

    Example:
        >>> calls = [StepCall("a", n, 0.0, 0.01, False) for n in range(9)]
        >>> calls.append(StepCall("a", 9, 0.5, 0.3, False))
        >>> s = score_calls(calls)
        >>> s.recall, math.isnan(s.precision), s.calibrated_steps, round(s.ece, 2)
        (0.0, True, 1, 0.7)
        >>> round(s.brier_skill, 3)  # better than the base rate (0.1) as a constant forecast
        0.455

    """
    return _scores(_counts(calls, margin, size).sum(axis=0))


def trace_interval(
    calls: Sequence[StepCall],
    measure: Callable[[CallScores], float],
    margin: float = MARGIN,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
) -> Interval | None:
    """A 95% percentile interval of ``measure`` by resampling whole traces with replacement.

    None when fewer than two traces hold the calls or the measure is undefined too often (in
    more than a twentieth of the resamples).

    Example:
        >>> calls = [StepCall(t, 0, 0.4, 0.9, t != "c") for t in "abcdefgh"]
        >>> interval = trace_interval(calls, lambda s: s.recall, resamples=500)
        >>> 0.5 <= interval.low <= 0.875 <= interval.high <= 1.0
        True

    """
    names = sorted({c.trace for c in calls})
    if len(names) < 2:
        return None
    number = {name: n for n, name in enumerate(names)}
    per_trace = np.zeros((len(names), _WIDTH))
    rows = _counts(calls, margin, MOVE_DELTA)
    np.add.at(per_trace, [number[c.trace] for c in calls], rows)
    generator = np.random.default_rng(seed)
    drawn = generator.integers(0, len(names), size=(resamples, len(names)))
    weights = np.stack([np.bincount(row, minlength=len(names)) for row in drawn])
    found = [measure(_scores(totals)) for totals in weights @ per_trace]
    kept = np.sort([value for value in found if not math.isnan(value)])
    if len(kept) < 0.95 * resamples:
        return None
    low, high = np.quantile(kept, [0.025, 0.975])
    return Interval(float(low), float(high))


_BINS = len(CALIBRATION_BINS) - 1
_WIDTH = 10 + 3 * _BINS
"""A step's counts: steps, positives, negatives, called, hits, false alarms, confident misses,
moved, squared error, calibrated steps; then per bin its steps, stated chances and moves."""


def _counts(calls: Sequence[StepCall], margin: float, size: float) -> np.ndarray:
    """One row of additive counts per call (``_WIDTH`` columns), from which every score is made."""
    rows = np.zeros((len(calls), _WIDTH))
    low, high = CALIBRATED
    for row, call in zip(rows, calls, strict=True):
        change = abs(call.delta)
        positive = change >= size + margin - MOVE_TOLERANCE
        negative = change < size - margin - MOVE_TOLERANCE
        moved = moved_by(call.delta, size)
        row[:10] = (
            1,
            positive,
            negative,
            call.called,
            positive and call.called,
            negative and call.called,
            positive and call.chance < CONFIDENT,
            moved,
            (call.chance - moved) ** 2,
            low <= call.chance <= high,
        )
        if low <= call.chance <= high:
            place = min(bisect.bisect_right(CALIBRATION_BINS, call.chance) - 1, _BINS - 1)
            row[10 + 3 * place : 13 + 3 * place] = (1, call.chance, moved)
    return rows


def _scores(totals: np.ndarray) -> CallScores:
    """The scores of summed counts (``_counts``)."""
    steps, positives, negatives, called, hits, alarms, sure_misses, moved, squared, inside = (
        float(v) for v in totals[:10]
    )
    base = moved / steps if steps else math.nan
    base_brier = base * (1 - base)
    bins = totals[10:].reshape(_BINS, 3)
    gaps = float(np.abs(bins[:, 1] - bins[:, 2]).sum())
    return CallScores(
        steps=int(steps),
        positives=int(positives),
        negatives=int(negatives),
        called=int(called),
        recall=_ratio(hits, positives),
        precision=_ratio(hits, hits + alarms),
        ece=_ratio(gaps, inside),
        calibrated_steps=int(inside),
        brier_skill=1 - (squared / steps) / base_brier if base_brier > 0 else math.nan,
        confident_misses=_ratio(sure_misses, positives),
    )


def _ratio(part: float, whole: float) -> float:
    return part / whole if whole else math.nan
