"""Step values: the success rate of continuations from before each segment, with its interval.

``v_i`` is the rate at which rollouts from before segment i reach a right answer (Math-Shepherd's
soft label), with Wilson's 95% interval. After the last segment of an ended trace the value is
the trace's own verdict, exactly.

Example:
    >>> from llenvs.analysis.sampling._rollout import Rollout
    >>> rollouts = [Rollout(0, n, n, n < 3, "4" if n < 3 else "5", 9) for n in range(4)]
    >>> [v] = boundary_values(rollouts, [0])
    >>> v.value, v.interval, dict(v.answers)
    (0.75, Interval(low=0.301, high=0.954), {'4': 3, '5': 1})

"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from llenvs.analysis.sampling import Rollout
from llenvs.analysis.statistics._interval import Interval, wilson_interval
from llenvs.analysis.statistics._tally import Tally

__all__ = ["BoundaryValue", "boundary_values", "exact_value", "tallies"]


@dataclass(frozen=True)
class BoundaryValue:
    """The value of one boundary (before segment ``boundary``).

    Example:
        >>> BoundaryValue(0, 0, 0, None, Interval(0.0, 1.0)).value is None
        True

    """

    boundary: int
    """Segments kept before the continuations."""
    trials: int
    """Rollouts counted (failed ones are not)."""
    successes: int
    """Rollouts that reached a right answer."""
    value: float | None
    """The success rate (None with no rollouts)."""
    interval: Interval
    """Wilson's 95% interval of the rate (a point for an exact value)."""
    answers: Counter[str | None] = field(default_factory=Counter)
    """How many rollouts gave each answer (None: no answer)."""
    exact: bool = False
    """True after the last segment of an ended trace: its own verdict, not an estimate."""


def tallies(rollouts: Iterable[Rollout], boundaries: Iterable[int]) -> dict[int, Tally]:
    """Successes and trials at each boundary (failed rollouts left out).

    Example:
        >>> tallies([Rollout(1, 0, 0, True, "4", 1)], [0, 1])
        {0: Tally(successes=0, trials=0), 1: Tally(successes=1, trials=1)}

    """
    counts = {b: [0, 0] for b in boundaries}
    for rollout in rollouts:
        if rollout.error is None and rollout.boundary in counts:
            counts[rollout.boundary][0] += int(rollout.success)
            counts[rollout.boundary][1] += 1
    return {b: Tally(s, n) for b, (s, n) in counts.items()}


def boundary_values(rollouts: Sequence[Rollout], boundaries: Iterable[int]) -> list[BoundaryValue]:
    """The value of each boundary from the rollouts (failed rollouts left out).

    Example:
        >>> boundary_values([], [0])[0].interval
        Interval(low=0.0, high=1.0)

    """
    counted = tallies(rollouts, boundaries)
    values = []
    for boundary, tally in counted.items():
        answers = Counter(r.answer for r in rollouts if r.boundary == boundary and r.error is None)
        value = tally.successes / tally.trials if tally.trials else None
        interval = wilson_interval(tally.successes, tally.trials)
        values.append(
            BoundaryValue(boundary, tally.trials, tally.successes, value, interval, answers)
        )
    return values


def exact_value(boundary: int, success: bool, answer: str | None) -> BoundaryValue:
    """The value after an ended trace's last segment: its own verdict, a point interval.

    Example:
        >>> exact_value(3, True, "4").interval
        Interval(low=1.0, high=1.0)

    """
    value = 1.0 if success else 0.0
    return BoundaryValue(
        boundary, 0, 0, value, Interval(value, value), Counter({answer: 1}), exact=True
    )
