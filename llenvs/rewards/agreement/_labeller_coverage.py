"""What one labeller labelled in a file: traces, steps, coverage and the count of each label.

Example:
    >>> c = labeller_coverage({"a": {0: 1, 1: -1}, "b": {}}, {"a": 4, "b": 2, "c": 2})
    >>> c.traces, c.traces_with_error, c.steps_labelled, c.steps, c.coverage, c.counts
    (1, 1, 2, 8, 0.25, {-1: 1, 0: 0, 1: 1})

"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from llenvs.rewards.agreement._first_error_prediction import LABELS, Labelling, first_error

__all__ = ["LabellerCoverage", "labeller_coverage"]


@dataclass(frozen=True)
class LabellerCoverage:
    """One labeller's labels in a file, counted."""

    traces: int
    """Traces with at least one labelled step."""
    traces_with_error: int
    """Of those, the ones with a step labelled -1."""
    steps_labelled: int
    """Labelled steps."""
    steps: int
    """Steps in the file (every trace's)."""
    counts: Mapping[int, int]
    """How many steps carry each label (-1, 0, 1)."""

    @property
    def coverage(self) -> float:
        """``steps_labelled / steps`` (NaN for a file without steps)."""
        return self.steps_labelled / self.steps if self.steps else math.nan

    def as_record(self) -> dict[str, Any]:
        """The counts for JSON (labels as strings: JSON keys are strings).

        Example:
            >>> labeller_coverage({}, {}).as_record()["coverage"] is None
            True

        """
        coverage = self.coverage
        return {
            "traces": self.traces,
            "traces_with_error": self.traces_with_error,
            "steps_labelled": self.steps_labelled,
            "steps": self.steps,
            "coverage": None if math.isnan(coverage) else coverage,
            "counts": {str(label): count for label, count in self.counts.items()},
        }


def labeller_coverage(labels: Labelling, steps: Mapping[str, int]) -> LabellerCoverage:
    """Count ``labels`` (trace id -> segment -> label) on a file of ``steps`` (id -> segments).

    Labels of a trace the file does not hold, or past a trace's last segment, do not count.

    Example:
        >>> labeller_coverage({"gone": {0: 1}, "a": {5: 1}}, {"a": 2}).steps_labelled
        0

    """
    kept = {
        trace_id: {s: label for s, label in labelled.items() if 0 <= s < steps[trace_id]}
        for trace_id, labelled in labels.items()
        if trace_id in steps
    }
    kept = {trace_id: labelled for trace_id, labelled in kept.items() if labelled}
    counts = {label: 0 for label in LABELS}
    for labelled in kept.values():
        for label in labelled.values():
            counts[label] = counts.get(label, 0) + 1
    return LabellerCoverage(
        traces=len(kept),
        traces_with_error=sum(first_error(labelled) != -1 for labelled in kept.values()),
        steps_labelled=sum(len(labelled) for labelled in kept.values()),
        steps=sum(steps.values()),
        counts=counts,
    )
