"""A PRM's calibration against step labels: score bins, and the share of their steps labelled right.

Example:
    >>> table = calibration_table({"t": {0: 1, 1: 1, 2: -1}}, {"t": [0.95, 0.9, 0.05]}, bins=2)
    >>> [(b.low, b.high, b.steps, b.share_correct) for b in table]
    [(0.0, 0.5, 1, 0.0), (0.5, 1.0, 2, 1.0)]

"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from llenvs.rewards.agreement._compared_trace import Scores, score_at
from llenvs.rewards.agreement._first_error_prediction import Labelling

__all__ = ["BINS", "CalibrationBin", "calibration_table"]

BINS = 10
"""How many equal-width score bins a calibration table has by default."""


@dataclass(frozen=True)
class CalibrationBin:
    """The labelled steps a PRM scored in ``[low, high)`` (the last bin includes 1.0).

    Example:
        >>> CalibrationBin(0.0, 0.5, 4, 1, 2).share_correct
        0.25
        >>> CalibrationBin(0.5, 1.0, 0, 0, 0).as_record()["share_correct"] is None
        True

    """

    low: float
    """The bin's lowest score."""
    high: float
    """Its upper end (excluded, but for the last bin)."""
    steps: int
    """Labelled steps scored in the bin."""
    correct: int
    """Of those, the ones labelled right (1)."""
    wrong: int
    """And the ones labelled wrong (-1); the rest are neutral (0)."""

    @property
    def share_correct(self) -> float:
        """``correct / steps`` (NaN for an empty bin)."""
        return self.correct / self.steps if self.steps else math.nan

    def as_record(self) -> dict[str, float | int | None]:
        """The bin's fields and its share for JSON (an empty bin's share as None)."""
        share = self.share_correct
        return {**asdict(self), "share_correct": None if math.isnan(share) else share}


def calibration_table(
    labels: Labelling, scores: Scores, bins: int = BINS
) -> tuple[CalibrationBin, ...]:
    """``bins`` equal-width bins of [0, 1], each with its labelled, rated steps counted.

    Example:
        >>> calibration_table({}, {}, bins=0)
        Traceback (most recent call last):
        ...
        ValueError: bins must be >= 1, got 0

    """
    if bins < 1:
        raise ValueError(f"bins must be >= 1, got {bins}")
    counts = [[0, 0, 0] for _ in range(bins)]
    for trace_id, steps in labels.items():
        trace = scores.get(trace_id)
        if trace is None:
            continue
        for segment, label in steps.items():
            score = score_at(trace, segment)
            if score is None:
                continue
            count = counts[min(max(int(score * bins), 0), bins - 1)]
            count[0] += 1
            count[1] += label == 1
            count[2] += label == -1
    return tuple(CalibrationBin(i / bins, (i + 1) / bins, *count) for i, count in enumerate(counts))
