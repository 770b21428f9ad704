"""Resampling importance: how much step i changes the outcome and the answers.

The importance of step i is ``v_{i+1} - v_i``: the value after the step minus the value before
it (positive: the step helped), with a bootstrap 95% interval. The answer shift is the
Jensen–Shannon divergence (and the total variation) between the answers of rollouts with and
without the step (Thought Anchors' resampling importance).

Example:
    >>> from collections import Counter
    >>> from llenvs.analysis.statistics._boundary_value import BoundaryValue
    >>> from llenvs.analysis.statistics._interval import wilson_interval
    >>> before = BoundaryValue(0, 10, 2, 0.2, wilson_interval(2, 10), Counter({"4": 2, "5": 8}))
    >>> after = BoundaryValue(1, 10, 9, 0.9, wilson_interval(9, 10), Counter({"4": 9, "5": 1}))
    >>> [s] = step_importances([before, after], seed=0)
    >>> s.step, round(s.importance, 2), s.interval.low > 0, round(s.divergence, 2)
    (0, 0.7, True, 0.4)

"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from llenvs.analysis.statistics._boundary_value import BoundaryValue
from llenvs.analysis.statistics._divergence import js_divergence, total_variation
from llenvs.analysis.statistics._interval import Interval, RateSample, difference_interval

__all__ = ["StepImportance", "step_importances"]


@dataclass(frozen=True)
class StepImportance:
    """The importance of one step (segment ``step``).

    Example:
        >>> StepImportance(0, None, Interval(-1.0, 1.0), None, None).importance is None
        True

    """

    step: int
    """The segment's index."""
    importance: float | None
    """``v_{step+1} - v_step`` (None while either value is unknown)."""
    interval: Interval
    """Bootstrap 95% interval of the difference."""
    divergence: float | None
    """Jensen–Shannon divergence (bits) of the answers with and without the step."""
    variation: float | None
    """Total variation distance of the same two answer distributions."""


def step_importances(values: Sequence[BoundaryValue], *, seed: int = 0) -> list[StepImportance]:
    """The importance of each step between consecutive boundary values.

    ``values`` are boundary values in order; step i lies between boundaries i and i + 1, and
    only steps with both are given. The bootstrap of step i is seeded from ``seed`` and i.

    Example:
        >>> step_importances([])
        []

    """
    steps = []
    for before, after in itertools.pairwise(values):
        if after.boundary != before.boundary + 1:
            continue
        importance = (
            None if before.value is None or after.value is None else after.value - before.value
        )
        steps.append(
            StepImportance(
                before.boundary,
                importance,
                _interval(before, after, seed * 100_003 + before.boundary),
                js_divergence(before.answers, after.answers),
                total_variation(before.answers, after.answers),
            )
        )
    return steps


def _interval(before: BoundaryValue, after: BoundaryValue, seed: int) -> Interval:
    """The bootstrap interval of ``after - before``; an exact value does not vary."""
    return difference_interval(_sample(before), _sample(after), seed=seed)


def _sample(value: BoundaryValue) -> RateSample:
    if value.exact and value.value is not None:
        return value.value
    return (value.successes, value.trials)
