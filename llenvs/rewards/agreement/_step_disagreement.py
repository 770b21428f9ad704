"""The steps where a PRM and a labeller, or two labellers, disagree.

A PRM disagrees with a label when it scores a step below the threshold that is labelled right
or neutral (>= 0), or at or above it a step labelled wrong (-1); two labellers disagree where
both labelled a step and their labels differ.

Example:
    >>> prm_disagreements({"t": {0: 1, 1: -1}}, {"t": [0.2, 0.1]})
    [StepDisagreement(trace_id='t', segment=0, label=1, other=0.2)]
    >>> label_disagreements({"t": {0: 1, 1: -1}}, {"t": {0: 1, 1: 0, 2: 1}})
    [StepDisagreement(trace_id='t', segment=1, label=-1, other=0)]

"""

from __future__ import annotations

from dataclasses import dataclass

from llenvs.rewards.agreement._compared_trace import Scores, score_at
from llenvs.rewards.agreement._first_error_prediction import THRESHOLD, Labelling

__all__ = ["StepDisagreement", "label_disagreements", "prm_disagreements"]


@dataclass(frozen=True)
class StepDisagreement:
    """One step labelled one way and scored (or labelled by another) the other way.

    Example:
        >>> StepDisagreement("t", 2, -1, 0.75).as_record()
        {'trace_id': 't', 'segment': 2, 'label': -1, 'other': 0.75}

    """

    trace_id: str
    """The trace."""
    segment: int
    """The step's segment index."""
    label: int
    """The labeller's label (-1, 0 or 1)."""
    other: float
    """The PRM's score, or the other labeller's label."""

    def as_record(self) -> dict[str, str | int | float]:
        """The disagreement for JSON."""
        return {
            "trace_id": self.trace_id,
            "segment": self.segment,
            "label": self.label,
            "other": self.other,
        }


def prm_disagreements(
    labels: Labelling, scores: Scores, threshold: float = THRESHOLD
) -> list[StepDisagreement]:
    """The labelled, rated steps the PRM judges the other way, by trace then segment.

    Example:
        >>> prm_disagreements({"t": {0: -1, 1: 0}}, {"t": [0.5, None]})
        [StepDisagreement(trace_id='t', segment=0, label=-1, other=0.5)]

    """
    found = []
    for trace_id, steps in labels.items():
        trace = scores.get(trace_id)
        if trace is None:
            continue
        for segment in sorted(steps):
            label, score = steps[segment], score_at(trace, segment)
            if score is not None and (score < threshold) != (label == -1):
                found.append(StepDisagreement(trace_id, segment, label, score))
    return found


def label_disagreements(first: Labelling, second: Labelling) -> list[StepDisagreement]:
    """The steps both labelled, differently (``label``: the first's; ``other``: the second's).

    Example:
        >>> label_disagreements({"t": {0: 1}}, {"u": {0: -1}})
        []

    """
    found = []
    for trace_id, steps in first.items():
        others = second.get(trace_id, {})
        for segment in sorted(steps):
            if segment in others and others[segment] != steps[segment]:
                found.append(StepDisagreement(trace_id, segment, steps[segment], others[segment]))
    return found
