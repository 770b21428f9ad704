"""Two runs of the same tasks, compared task by task: the paired difference in success.

Two models, two segmenters, with and without an intervention: each run gives every task a
verdict, and the question is whether the second run succeeds more often than the first on the
*same* tasks. Pairing by task removes the spread between easy and hard tasks, so the interval
is much narrower than comparing two success rates as if they were independent. The difference
gets a 95% paired-bootstrap interval (tasks resampled with replacement) and McNemar's exact test
on the tasks where the runs disagree.

Example:
    >>> first = [True, True, False, False, False, True]
    >>> second = [True, True, True, True, False, True]
    >>> result = compare_paired(first, second)
    >>> result.tasks, result.only_first, result.only_second, round(result.difference, 3)
    (6, 0, 2, 0.333)
    >>> round(result.p_value, 3)
    0.5

"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from llenvs.analysis.interval import BOOTSTRAP_RESAMPLES, Interval

__all__ = ["PairedComparison", "compare_paired", "mcnemar_p_value"]


@dataclass(frozen=True)
class PairedComparison:
    """The second run against the first, on the tasks both have a verdict for.

    Example:
        >>> compare_paired([True], [False]).only_first
        1

    """

    tasks: int
    """Tasks with a verdict in both runs."""
    first_successes: int
    """Of those, how many the first run solved."""
    second_successes: int
    """Of those, how many the second run solved."""
    only_first: int
    """Tasks the first run solved and the second did not."""
    only_second: int
    """Tasks the second run solved and the first did not."""
    difference: float
    """Second run's success rate minus the first's."""
    interval: Interval
    """95% paired-bootstrap interval of ``difference``."""
    p_value: float
    """McNemar's exact two-sided p-value (1.0 when the runs never disagree)."""


def mcnemar_p_value(only_first: int, only_second: int) -> float:
    """McNemar's exact test: the two-sided binomial p-value of the discordant pairs.

    Under "neither run is better", each task the runs disagree on goes either way with
    probability 1/2.

    Example:
        >>> mcnemar_p_value(0, 0), mcnemar_p_value(0, 6)
        (1.0, 0.03125)
        >>> mcnemar_p_value(-1, 2)
        Traceback (most recent call last):
        ...
        ValueError: counts must be >= 0, got -1 and 2

    """
    if only_first < 0 or only_second < 0:
        raise ValueError(f"counts must be >= 0, got {only_first} and {only_second}")
    n = only_first + only_second
    if n == 0:
        return 1.0
    tail: float = sum(math.comb(n, k) for k in range(min(only_first, only_second) + 1)) / 2**n
    return min(1.0, 2 * tail)


def compare_paired(
    first: Sequence[bool],
    second: Sequence[bool],
    *,
    seed: int = 0,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> PairedComparison:
    """Compare two runs' verdicts on the same tasks, in the same order (see the module).

    Example:
        >>> compare_paired([True, False], [True])
        Traceback (most recent call last):
        ...
        ValueError: the runs must give verdicts on the same tasks: 2 and 1 verdicts
        >>> compare_paired([], [])
        Traceback (most recent call last):
        ...
        ValueError: no task has a verdict in both runs

    """
    if len(first) != len(second):
        raise ValueError(
            f"the runs must give verdicts on the same tasks: {len(first)} and {len(second)} "
            "verdicts"
        )
    if len(first) == 0:
        raise ValueError("no task has a verdict in both runs")
    change = [int(b) - int(a) for a, b in zip(first, second, strict=True)]
    rng = random.Random(seed)
    n = len(change)
    means = sorted(sum(rng.choices(change, k=n)) / n for _ in range(resamples))
    low, high = means[int(0.025 * (resamples - 1))], means[math.ceil(0.975 * (resamples - 1))]
    only_first, only_second = change.count(-1), change.count(1)
    return PairedComparison(
        tasks=n,
        first_successes=sum(map(bool, first)),
        second_successes=sum(map(bool, second)),
        only_first=only_first,
        only_second=only_second,
        difference=sum(change) / n,
        interval=Interval(low, high),
        p_value=mcnemar_p_value(only_first, only_second),
    )
