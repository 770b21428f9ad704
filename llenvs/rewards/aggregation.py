"""How a trace's step scores become one number: the weakest step, the last, all, or on average.

Example:
    >>> aggregate([1.0, 0.5, 0.8], Aggregation.MIN)
    0.5

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
    """The last step's score (it judges the whole solution so far)."""
    PRODUCT = "product"
    """The product: the probability that every step is right, if they were independent."""
    MEAN = "mean"
    """The average step score."""


def aggregate(scores: Sequence[float], how: Aggregation = Aggregation.MIN) -> float:
    """One score for a trace from its step scores.

    Raises ``ValueError`` for a trace with no steps (there is nothing to judge).

    Example:
        >>> s = [1.0, 0.5, 0.8]
        >>> [aggregate(s, a) for a in Aggregation]
        [0.5, 0.8, 0.4, 0.7666666666666666]

    """
    if not isinstance(how, Aggregation):
        raise TypeError(f"how must be an Aggregation, got {how!r}")
    if not scores:
        raise ValueError("no step scores to aggregate: the trace has no steps")
    if how is Aggregation.MIN:
        return float(min(scores))
    if how is Aggregation.LAST:
        return float(scores[-1])
    if how is Aggregation.PRODUCT:
        return float(math.prod(scores))
    return math.fsum(scores) / len(scores)
