"""Step AUROC: how well a predictor ranks the erroneous steps above the others.

Example:
    >>> auroc([0.9, 0.8], [0.1, 0.8])
    0.875

"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["auroc"]


def auroc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """P(a positive outranks a negative), ties counting one half (midranks, O(n log n)).

    It is the Mann-Whitney statistic over ``len(positives) * len(negatives)``: a constant
    predictor gives exactly 0.5. NaN when either side is empty (nothing to rank).

    Example:
        >>> auroc([1.0], [0.0]), auroc([0.5, 0.5], [0.5]), auroc([0.2], [0.7, 0.9])
        (1.0, 0.5, 0.0)
        >>> auroc([], [0.3])
        nan

    """
    n_pos, n_neg = len(positives), len(negatives)
    if not n_pos or not n_neg:
        return math.nan
    pooled = sorted([(v, 1) for v in positives] + [(v, 0) for v in negatives])
    rank_sum = 0.0
    i = 0
    while i < len(pooled):
        j = i
        while j < len(pooled) and pooled[j][0] == pooled[i][0]:
            j += 1
        midrank = (i + 1 + j) / 2
        rank_sum += midrank * sum(label for _, label in pooled[i:j])
        i = j
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)
