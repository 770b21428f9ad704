"""How far apart two answer distributions are: Jensen–Shannon divergence and total variation.

Answers are counted as given (``None``, no answer, is an answer of its own). Both measures are
0 for the same distribution and 1 for distributions with no answer in common (the
Jensen–Shannon divergence in bits).

Example:
    >>> js_divergence({"4": 3, "5": 1}, {"4": 3, "5": 1})
    0.0
    >>> js_divergence({"4": 2}, {"5": 2}), total_variation({"4": 2}, {"5": 2})
    (1.0, 1.0)

"""

from __future__ import annotations

import math
from collections.abc import Mapping

__all__ = ["AnswerCounts", "js_divergence", "total_variation"]

AnswerCounts = Mapping[str | None, int]
"""How many times each answer was given (``None``: no answer)."""


def _distributions(
    first: AnswerCounts, second: AnswerCounts
) -> tuple[list[float], list[float]] | None:
    """Both distributions over the union of their answers; None when either is empty."""
    total_first, total_second = sum(first.values()), sum(second.values())
    if total_first == 0 or total_second == 0:
        return None
    answers = list(dict.fromkeys([*first, *second]))
    return (
        [first.get(a, 0) / total_first for a in answers],
        [second.get(a, 0) / total_second for a in answers],
    )


def js_divergence(first: AnswerCounts, second: AnswerCounts) -> float | None:
    """The Jensen–Shannon divergence (base 2, in ``[0, 1]``); None when either has no answers.

    Example:
        >>> round(js_divergence({"4": 1, "5": 1}, {"4": 1}), 3), js_divergence({}, {"4": 1})
        (0.311, None)

    """
    pair = _distributions(first, second)
    if pair is None:
        return None
    total = 0.0
    for p, q in zip(*pair, strict=True):
        m = (p + q) / 2
        if p > 0:
            total += p * math.log2(p / m) / 2
        if q > 0:
            total += q * math.log2(q / m) / 2
    return min(1.0, max(0.0, total))


def total_variation(first: AnswerCounts, second: AnswerCounts) -> float | None:
    """Half the L1 distance between the distributions; None when either has no answers.

    Example:
        >>> total_variation({"4": 1, "5": 1}, {"4": 1})
        0.5

    """
    pair = _distributions(first, second)
    if pair is None:
        return None
    return sum(abs(p - q) for p, q in zip(*pair, strict=True)) / 2
