"""95% intervals: Wilson's score interval for a success rate, a bootstrap one for a difference.

Example:
    >>> wilson_interval(8, 10)
    Interval(low=0.49, high=0.943)
    >>> difference_interval((2, 10), (8, 10)).low > 0
    True

"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "Z_95",
    "Interval",
    "RateSample",
    "difference_interval",
    "newcombe_interval",
    "wilson_interval",
]

Z_95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""

BOOTSTRAP_RESAMPLES = 2000
"""How many resamples a bootstrap interval draws."""


@dataclass(frozen=True)
class Interval:
    """A closed interval ``[low, high]``, shown rounded to 3 places.

    Example:
        >>> Interval(0.25, 0.75).width, 0.5 in Interval(0.25, 0.75)
        (0.5, True)

    """

    low: float
    """Lower end."""
    high: float
    """Upper end."""

    def __post_init__(self) -> None:
        if not self.low <= self.high:
            raise ValueError(f"an interval needs low <= high, got [{self.low}, {self.high}]")

    @property
    def width(self) -> float:
        """``high - low``."""
        return self.high - self.low

    def __contains__(self, value: object) -> bool:
        return isinstance(value, int | float) and self.low <= value <= self.high

    def __repr__(self) -> str:
        return f"Interval(low={round(self.low, 3)}, high={round(self.high, 3)})"


def wilson_interval(successes: int, trials: int, z: float = Z_95) -> Interval:
    """Wilson's score interval of a success rate (``[0, 1]`` with no trials).

    Example:
        >>> wilson_interval(0, 0), wilson_interval(0, 20).high < 0.17
        (Interval(low=0.0, high=1.0), True)
        >>> wilson_interval(0, 100).low, wilson_interval(100, 100).high  # exact ends
        (0.0, 1.0)
        >>> wilson_interval(3, 2)
        Traceback (most recent call last):
        ...
        ValueError: successes must be in 0..trials (2), got 3

    """
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be in 0..trials ({trials}), got {successes}")
    if trials == 0:
        return Interval(0.0, 1.0)
    rate = successes / trials
    z2 = z * z
    centre = (rate + z2 / (2 * trials)) / (1 + z2 / trials)
    half = (
        z * math.sqrt(rate * (1 - rate) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    )
    # at an end the rate itself is the bound (the formula gives it up to rounding)
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return Interval(low, high)


def newcombe_interval(before: tuple[int, int], after: tuple[int, int]) -> Interval:
    """Newcombe's hybrid score 95% interval of ``rate(after) - rate(before)``, in closed form.

    Each sample is ``(successes, trials)``, independent; the interval combines the two Wilson
    intervals (Newcombe 1998, method 10). No resampling: for the many cells of a step-to-step
    matrix. A sample with no trials makes the interval the whole ``[-1, 1]``.

    Example:
        >>> newcombe_interval((2, 10), (8, 10))
        Interval(low=0.162, high=0.803)
        >>> newcombe_interval((0, 0), (3, 4))
        Interval(low=-1.0, high=1.0)

    """
    (s1, n1), (s2, n2) = before, after
    if n1 == 0 or n2 == 0:
        return Interval(-1.0, 1.0)
    p1, p2 = s1 / n1, s2 / n2
    first, second = wilson_interval(s1, n1), wilson_interval(s2, n2)
    low = p2 - p1 - math.hypot(p2 - second.low, first.high - p1)
    high = p2 - p1 + math.hypot(second.high - p2, p1 - first.low)
    return Interval(max(-1.0, low), min(1.0, high))


def difference_interval(
    before: RateSample,
    after: RateSample,
    *,
    seed: int = 0,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> Interval:
    """Percentile-bootstrap 95% interval of ``rate(after) - rate(before)``, independent samples.

    A sample is ``(successes, trials)``, or a float: a rate known exactly, which does not vary.
    Each resample redraws both samples with replacement (a binomial draw of their successes,
    from rates smoothed by half a success and half a failure); a sample with no trials spans
    the whole ``[0, 1]`` range of its rate. Seeded: the same samples and seed give the same
    interval.

    Example:
        >>> difference_interval((5, 10), (5, 10), seed=1) == difference_interval((5, 10), (5, 10), seed=1)
        True
        >>> difference_interval((0, 0), (1, 1))
        Interval(low=0.0, high=1.0)
        >>> difference_interval((0, 10), 1.0).low > 0.7
        True

    """  # noqa: E501
    first, second = _sampler(before), _sampler(after)
    if first.trials == 0 or second.trials == 0:
        return Interval(max(-1.0, second.low - first.high), min(1.0, second.high - first.low))
    rng = random.Random(seed)
    # Per resample, one uniform for each sample that varies, drawn in turn: second, then first.
    samplers = (second, first)
    varying = sum(sampler.trials > 0 for sampler in samplers)
    uniforms = np.array([rng.random() for _ in range(varying * resamples)])
    columns = iter(uniforms.reshape(resamples, varying).T)
    second_rates, first_rates = (
        sampler.draws(next(columns) if sampler.trials > 0 else None, resamples)
        for sampler in samplers
    )
    draws = np.sort(second_rates - first_rates)
    low = float(draws[int(0.025 * (resamples - 1))])
    high = float(draws[math.ceil(0.975 * (resamples - 1))])
    return Interval(low, high)


RateSample = tuple[int, int] | float
"""``(successes, trials)`` of a sample, or a rate known exactly."""


def _sampler(sample: RateSample) -> _BinomialSampler:
    if isinstance(sample, tuple):
        successes, trials = sample
        if not 0 <= successes <= trials:
            raise ValueError(f"successes must be in 0..trials ({trials}), got {successes}")
        return _BinomialSampler(successes, trials)
    return _BinomialSampler.exact(float(sample))


class _BinomialSampler:
    """Draws the success rate of a bootstrap resample of ``trials`` outcomes (inverse CDF).

    The resampled rate is smoothed by half a success and half a failure (Jeffreys' prior), so
    a sample with no successes (or no failures) still varies: without it, 0 of 10 would
    resample as 0 of 10 every time and give a zero-width interval.
    """

    def __init__(self, successes: int, trials: int) -> None:
        self.trials = trials
        self.rate = successes / trials if trials else 0.0
        self.low, self.high = (0.0, 1.0) if trials == 0 else (self.rate, self.rate)
        self.cdf: list[float] = []
        if trials == 0:
            return
        smoothed = (successes + 0.5) / (trials + 1)
        log_p, log_q = math.log(smoothed), math.log1p(-smoothed)
        total = 0.0
        for k in range(trials + 1):
            log_mass = (
                math.lgamma(trials + 1)
                - math.lgamma(k + 1)
                - math.lgamma(trials - k + 1)
                + k * log_p
                + (trials - k) * log_q
            )
            total += math.exp(log_mass)
            self.cdf.append(total)

    @classmethod
    def exact(cls, rate: float) -> _BinomialSampler:
        """A sample that always draws ``rate``."""
        sampler = cls(0, 0)
        sampler.trials, sampler.rate, sampler.low, sampler.high = -1, rate, rate, rate
        return sampler

    def draws(self, uniforms: np.ndarray | None, count: int) -> np.ndarray:
        """The rates of ``count`` resamples, one per uniform in [0, 1) (inverse CDF).

        An exact sample takes no uniforms (None) and draws its rate every time.
        """
        if self.trials < 0:
            return np.full(count, self.rate)
        assert uniforms is not None and len(uniforms) == count
        cdf = np.asarray(self.cdf)
        k = np.searchsorted(cdf, uniforms * cdf[-1], side="left")
        rates: np.ndarray = np.minimum(k, self.trials) / self.trials
        return rates
