"""How a trace's step scores become one number: the weakest step, the last, all, or on average.

Unrated steps (None) are left out; a trace with no rated step aggregates to None (unrated).

Example:
    >>> aggregate([1.0, 0.5, 0.8], Aggregation.MIN), aggregate([1.0, None], Aggregation.LAST)
    (0.5, 1.0)

"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import Enum

__all__ = ["Aggregation", "aggregate"]


class Aggregation(Enum):
    """The published ways to turn step scores into a trace score.

    Example:
        >>> Aggregation("product") is Aggregation.PRODUCT
        True

    """

    MIN = "min"
    """The weakest step (a chain is as strong as its weakest link)."""
    LAST = "last"
    """The last rated step's score (it judges the whole solution so far)."""
    PRODUCT = "product"
    """The product: the probability that every step is right, if they were independent."""
    MEAN = "mean"
    """The average step score."""


def aggregate(scores: Sequence[float | None], how: Aggregation = Aggregation.MIN) -> float | None:
    """One score for a trace from its step scores; unrated steps (None) are skipped.

    Returns None when no step is rated. Raises ``ValueError`` for a trace with no steps (there
    is nothing to judge).

    Example:
        >>> s = [1.0, None, 0.5, 0.8]
        >>> [aggregate(s, a) for a in Aggregation], aggregate([None, None]) is None
        ([0.5, 0.8, 0.4, 0.7666666666666666], True)

    """
    if not isinstance(how, Aggregation):
        raise TypeError(f"how must be an Aggregation, got {how!r}")
    if not scores:
        raise ValueError("no step scores to aggregate: the trace has no steps")
    rated = [s for s in scores if s is not None]
    if not rated:
        return None
    if how is Aggregation.MIN:
        return float(min(rated))
    if how is Aggregation.LAST:
        return float(rated[-1])
    if how is Aggregation.PRODUCT:
        return float(math.prod(rated))
    return math.fsum(rated) / len(rated)
