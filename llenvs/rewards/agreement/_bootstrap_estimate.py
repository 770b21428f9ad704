"""A statistic with its percentile-bootstrap interval, the units (traces) resampled.

Example:
    >>> [mean] = bootstrap([1.0, 2.0, 3.0, 4.0], lambda xs: [sum(xs) / len(xs)], seed=1)
    >>> mean.value, mean.low <= 2.5 <= mean.high
    (2.5, True)

"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

__all__ = ["LEVEL", "RESAMPLES", "Estimate", "bootstrap", "percentile"]

RESAMPLES = 1000
"""How many resamples an interval draws by default."""

LEVEL = 0.95
"""The interval's coverage by default (its ends: the 2.5th and 97.5th percentiles)."""

Unit = TypeVar("Unit")


@dataclass(frozen=True)
class Estimate:
    """A point estimate and the ends of its interval (NaN: nothing to measure).

    Example:
        >>> Estimate(0.5, 0.25, 0.75).as_record()
        {'value': 0.5, 'low': 0.25, 'high': 0.75}
        >>> Estimate(math.nan, math.nan, math.nan).as_record()
        {'value': None, 'low': None, 'high': None}

    """

    value: float
    """The statistic on all the units."""
    low: float
    """The interval's lower end."""
    high: float
    """The interval's upper end."""

    def as_record(self) -> dict[str, float | None]:
        """The three numbers for JSON: NaN (nothing to measure) as None."""
        return {
            "value": _finite(self.value),
            "low": _finite(self.low),
            "high": _finite(self.high),
        }


def bootstrap(
    units: Sequence[Unit],
    statistic: Callable[[Sequence[Unit]], Sequence[float]],
    *,
    resamples: int = RESAMPLES,
    seed: int = 0,
    level: float = LEVEL,
) -> tuple[Estimate, ...]:
    """Each number ``statistic`` gives, with its percentile-bootstrap interval.

    ``units`` are resampled with replacement ``resamples`` times (``random.Random(seed)``:
    the same units and seed give the same intervals); the interval of each number is the
    central ``level`` of its resampled values (``percentile``). A resample where a number is
    NaN (no trace with an error drawn, say) does not count for it; with no units, or no finite
    resample, its ends are NaN. ``resamples=0`` gives the point estimates only, ends NaN.

    Example:
        >>> a = bootstrap([0, 1, 1, 0, 1], lambda xs: [sum(xs) / len(xs)], seed=7)
        >>> a == bootstrap([0, 1, 1, 0, 1], lambda xs: [sum(xs) / len(xs)], seed=7)
        True
        >>> bootstrap([], lambda xs: [math.nan])
        (Estimate(value=nan, low=nan, high=nan),)
        >>> bootstrap([1.0], lambda xs: [xs[0]], resamples=-1)
        Traceback (most recent call last):
        ...
        ValueError: resamples must be >= 0, got -1

    """
    if resamples < 0:
        raise ValueError(f"resamples must be >= 0, got {resamples}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    points = list(statistic(units))
    draws: list[list[float]] = [[] for _ in points]
    if units:
        rng = random.Random(seed)
        count = len(units)
        for _ in range(resamples):
            values = statistic([units[i] for i in rng.choices(range(count), k=count)])
            for drawn, value in zip(draws, values, strict=True):
                if not math.isnan(value):
                    drawn.append(value)
    tail = (1 - level) / 2
    return tuple(
        Estimate(point, percentile(drawn, tail), percentile(drawn, 1 - tail))
        for point, drawn in zip(points, draws, strict=True)
    )


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ``values``, interpolated linearly between order statistics.

    Example:
        >>> percentile([4.0, 1.0, 3.0, 2.0], 0.5), percentile([1.0, 2.0], 0.0), percentile([], 0.5)
        (2.5, 1.0, nan)

    """
    if not values:
        return math.nan
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else value
