"""One trace as a PRM's scores and a labeller's labels compare on it: the unit of resampling.

Example:
    >>> [t] = compared_traces({"t": {0: 1, 1: -1}}, {"t": [0.9, 0.2, 0.1]})
    >>> t.first_error, t.predicted, t.positives, t.negatives
    (1, 1, (0.8,), (0.09999999999999998,))

"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from llenvs.rewards.agreement._first_error_prediction import (
    THRESHOLD,
    Labelling,
    first_below,
    first_error,
)

__all__ = ["ComparedTrace", "Scores", "compared_traces", "score_at"]

Scores = Mapping[str, Sequence[float | None]]
"""A PRM's scores of a file: trace id -> one score per segment (None: the step is unrated)."""


@dataclass(frozen=True)
class ComparedTrace:
    """What a PRM's scores and a labeller's labels give on one trace.

    Example:
        >>> ComparedTrace("t", -1, -1, (), (0.5,)).hit
        True

    """

    trace_id: str
    """The trace."""
    first_error: int
    """The labelled first error (``first_error``): -1 when no labelled step is wrong."""
    predicted: int
    """The first step the PRM scores below the threshold (``first_below``), or -1."""
    positives: tuple[float, ...]
    """``1 - score`` of the steps labelled -1 that the PRM rated."""
    negatives: tuple[float, ...]
    """``1 - score`` of the steps labelled 0 or 1 that the PRM rated."""

    @property
    def hit(self) -> bool:
        """Whether the predicted first error is the labelled one (-1 and -1 included)."""
        return self.predicted == self.first_error


def compared_traces(
    labels: Labelling, scores: Scores, threshold: float = THRESHOLD
) -> list[ComparedTrace]:
    """The traces both labelled (at least one step) and scored, in the order of ``labels``.

    A labelled step the PRM did not rate (None, or past its scores) counts for no AUROC.

    Example:
        >>> [t.trace_id for t in compared_traces({"a": {0: 1}, "b": {}, "c": {0: 1}},
        ...                                      {"a": [1.0], "b": [1.0]})]
        ['a']

    """
    compared = []
    for trace_id, steps in labels.items():
        if not steps or trace_id not in scores:
            continue
        trace = scores[trace_id]
        positives: list[float] = []
        negatives: list[float] = []
        for segment in sorted(steps):
            score = score_at(trace, segment)
            if score is not None:
                (positives if steps[segment] == -1 else negatives).append(1.0 - score)
        compared.append(
            ComparedTrace(
                trace_id,
                first_error(steps),
                first_below(trace, threshold),
                tuple(positives),
                tuple(negatives),
            )
        )
    return compared


def score_at(scores: Sequence[float | None], segment: int) -> float | None:
    """The score of ``segment``, None when unrated or past the scores.

    Example:
        >>> score_at([0.5, None], 0), score_at([0.5, None], 1), score_at([0.5], 4)
        (0.5, None, None)

    """
    return scores[segment] if 0 <= segment < len(scores) else None
