"""Schedules: which boundaries the next round of rollouts goes to.

``FixedSchedule`` spreads the budget evenly (the same k at every boundary, as Thought Anchors
does); ``AdaptiveSchedule`` first gives every boundary a few rollouts, then gives each round to
the boundaries of the steps whose place among the ``top_k`` most important is in doubt
(``top_steps_round``), and once those are separated to the boundaries whose step value is least
certain (the widest Wilson interval), until every interval is narrower than the target width or
the budget is spent.

Example:
    >>> tallies = {0: Tally(0, 0), 1: Tally(0, 0)}
    >>> FixedSchedule(per_round=2).next_round(tallies, budget_left=10, width=0.3)
    [0, 1, 0, 1]
    >>> AdaptiveSchedule(round_size=3).next_round({0: Tally(9, 10), 1: Tally(5, 10)}, 9, 0.3)
    [1, 1, 1]

"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from llenvs.analysis.statistics._changepoints import (
    CHANGE_PRIOR,
    EXCURSION_PRIOR,
    MOVE_DELTA,
    change_chances,
)
from llenvs.analysis.statistics._interval import Z_95
from llenvs.analysis.statistics._tally import Tally
from llenvs.analysis.statistics._top_steps import top_steps_round

__all__ = [
    "AdaptiveSchedule",
    "FixedSchedule",
    "MovesSchedule",
    "Prices",
    "RoundSchedule",
    "Schedule",
    "Tally",
    "default_schedule",
    "sampled",
    "wilson_width",
]


def wilson_width(rate: float, trials: float, z: float = Z_95) -> float:
    """The width of Wilson's interval at ``rate`` after ``trials`` (1.0 with none).

    Example:
        >>> round(wilson_width(0.5, 10), 3), wilson_width(0.5, 0)
        (0.527, 1.0)

    """
    if trials <= 0:
        return 1.0
    z2 = z * z
    half = z * math.sqrt(rate * (1 - rate) / trials + z2 / (4 * trials * trials))
    return min(1.0, 2 * half / (1 + z2 / trials))


Prices = Mapping[int, float]
"""Each boundary's rollout price in tokens (``rollout_prices``): given when the budget is tokens."""


class Schedule(Protocol):
    """Chooses the boundaries of the next round: one entry per rollout; empty when done.

    ``prices``, given when the run's budget is in tokens, lets a schedule weigh what a rollout
    from each boundary tells against what it costs; the run admits what fits.
    """

    def next_round(
        self,
        tallies: Mapping[int, Tally],
        budget_left: int,
        width: float,
        *,
        prices: Prices | None = None,
    ) -> list[int]:
        """The boundaries of the next round's rollouts (a boundary repeats for several)."""
        ...


def sampled(tallies: Mapping[int, Tally]) -> dict[int, Tally]:
    """The tallies a schedule may give rollouts to: all but the ``exact`` ones.

    Example:
        >>> sampled({0: Tally(1, 2), 1: Tally(1, 1, exact=True)})
        {0: Tally(successes=1, trials=2)}

    """
    return {b: t for b, t in tallies.items() if not t.exact}


def _level_up(tallies: Mapping[int, Tally], level: int, budget_left: int) -> list[int]:
    """Rollouts that bring every sampled boundary to ``level`` trials, the least sampled first."""
    wanted: list[int] = []
    open_ = sampled(tallies)
    lowest = min((t.trials for t in open_.values()), default=level)
    for step in range(lowest, level):
        wanted.extend(b for b, t in open_.items() if t.trials <= step)
    return wanted[: max(0, budget_left)]


@dataclass(frozen=True)
class RoundSchedule:
    """A first round of ``initial`` rollouts per boundary, then rounds of ``round_size``.

    Each schedule hands out its later rounds its own way (``later_round``): the adaptive and
    the moves schedules here, the step matrix's in ``llenvs.analysis.instruments``.
    """

    initial: int = 4
    """Rollouts every boundary gets before any gets more."""
    round_size: int | None = None
    """Rollouts per later round (None: as many as there are boundaries)."""

    def __post_init__(self) -> None:
        if self.initial < 1:
            raise ValueError(f"initial must be >= 1, got {self.initial}")
        if self.round_size is not None and self.round_size < 1:
            raise ValueError(f"round_size must be >= 1 or None, got {self.round_size}")

    def next_round(
        self,
        tallies: Mapping[int, Tally],
        budget_left: int,
        width: float,
        *,
        prices: Prices | None = None,
    ) -> list[int]:
        """The boundaries of the next round (see the class docstring)."""
        open_ = sampled(tallies)
        if not open_ or budget_left <= 0:
            return []
        first = _level_up(tallies, self.initial, budget_left)
        if first:
            return first
        size = min(budget_left, self.round_size or len(open_))
        return self.later_round(tallies, open_, size, width, _relative(open_, prices))

    def later_round(
        self,
        tallies: Mapping[int, Tally],
        open_: dict[int, Tally],
        size: int,
        width: float,
        cost: Mapping[int, float],
    ) -> list[int]:
        """A round after the first (the subclasses')."""
        raise NotImplementedError


@dataclass(frozen=True)
class FixedSchedule:
    """The same number of rollouts at every boundary, ``per_round`` more each round.

    The whole budget is spent (the target width is not consulted); when it does not divide
    evenly, the boundaries that have fewest get the rest, in order.

    Example:
        >>> FixedSchedule(per_round=4).next_round({0: Tally(0, 4), 1: Tally(0, 3)}, 2, 0.3)
        [1, 0]

    """

    per_round: int = 4
    """Rollouts added at each boundary per round."""

    def next_round(
        self,
        tallies: Mapping[int, Tally],
        budget_left: int,
        width: float,
        *,
        prices: Prices | None = None,
    ) -> list[int]:
        """Bring every boundary ``per_round`` above the least sampled one (prices aside)."""
        lowest = min((t.trials for t in sampled(tallies).values()), default=0)
        return _level_up(tallies, lowest + self.per_round, budget_left)


@dataclass(frozen=True)
class AdaptiveSchedule(RoundSchedule):
    """A first round of ``initial`` rollouts per boundary, then rounds to where doubt remains.

    Later rounds first go to settling which ``top_k`` steps have the largest
    ``|v_{i+1} - v_i|``, and in which order (``top_steps_round``: the boundaries of the steps
    whose place among the top 1, ..., top k is in doubt, racing style), the question users ask
    ("which steps mattered most?"). Once those are settled, rounds go to the boundaries whose
    Wilson interval would be widest, counting the rollouts already handed out this round at
    their current rate; boundaries already narrower than the target get none. ``top_k=0``
    skips the first part: only widths count (the schedule's behaviour before ``top_k``). Each
    later round has ``round_size`` rollouts (default: one per boundary). An empty round means
    the top k is settled and every interval is narrow enough, or the budget is spent.

    Example:
        >>> AdaptiveSchedule(initial=2).next_round({0: Tally(0, 0), 1: Tally(1, 1)}, 9, 0.3)
        [0, 0, 1]
        >>> AdaptiveSchedule().next_round({0: Tally(0, 60), 1: Tally(60, 60)}, 9, 0.3)
        []
        >>> wide = {0: Tally(1, 4), 1: Tally(3, 4), 2: Tally(3, 4), 3: Tally(2, 4)}
        >>> AdaptiveSchedule(top_k=1).next_round(wide, 9, 0.3)
        [1, 1, 2, 2]
        >>> AdaptiveSchedule(top_k=0).next_round(wide, 9, 0.3)
        [0, 1, 3, 3]

    """

    top_k: int = 3
    """How many of the most important steps to settle first, in order (0: none, widths only)."""
    change_prior: float | None = CHANGE_PRIOR
    """The model of the value curve the top k is settled under: a step moves the value with
    this prior chance (``llenvs.analysis.statistics``); None: each value on its own."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.top_k < 0:
            raise ValueError(f"top_k must be >= 0, got {self.top_k}")

    def later_round(
        self,
        tallies: Mapping[int, Tally],
        open_: dict[int, Tally],
        size: int,
        width: float,
        cost: Mapping[int, float],
    ) -> list[int]:
        """A round after the first: ``size`` rollouts among the ``open_`` boundaries."""
        racing = top_steps_round(tallies, self.top_k, size, change_prior=self.change_prior)
        return racing or _widest(open_, size, width, cost)


@dataclass(frozen=True)
class MovesSchedule(RoundSchedule):
    """A first round of ``initial`` rollouts per boundary, then rounds to the doubtful moves.

    Later rounds go to the boundaries on both sides of the steps whose chance of having moved
    the value by at least ``delta`` (``change_chances``, what ``StepAnalysis.moved`` reads) is
    still in doubt, strictly between ``low`` and ``high``: each boundary is weighted by the
    doubt ``p (1 - p)`` of the steps it borders times their apparent size (the difference of
    the two boundaries' smoothed rates: a large move in doubt first), and the round's
    rollouts go one at a time to the largest weight over one plus the rollouts it has (this
    round's included): a step whose size is about ``delta`` stays in doubt however much it is
    sampled, and each rollout more there tells less than one where few have gone. It seeks
    every move, the transient ones included (a boundary that dips and returns borders two
    doubtful steps), where ``AdaptiveSchedule`` settles the top k. With no step in doubt,
    rounds go to the widest Wilson intervals, as ``AdaptiveSchedule(top_k=0)``'s; an empty
    round means no step is in doubt and every interval is narrower than the target, or the
    budget is spent.

    Example:
        >>> MovesSchedule(initial=2).next_round({0: Tally(0, 0), 1: Tally(1, 1)}, 9, 0.3)
        [0, 0, 1]
        >>> flat = {b: Tally(10, 20) for b in range(4)}
        >>> doubtful = {**flat, 2: Tally(15, 20)}  # boundary 2 may sit higher: steps 1 and 2
        >>> MovesSchedule(round_size=4).next_round(doubtful, 40, 0.3)
        [2, 2, 2, 2]
        >>> settled = {0: Tally(0, 60), 1: Tally(60, 60)}
        >>> MovesSchedule().next_round(settled, 9, 0.3)
        []

    """

    initial: int = 8
    """Rollouts every boundary gets before any gets more."""
    low: float = 0.05
    """A step whose chance of having moved is at most this is settled: it did not."""
    high: float = 0.95
    """A step whose chance of having moved is at least this is settled: it did."""
    change_prior: float = CHANGE_PRIOR
    """The prior chance that a step moves the value (``llenvs.analysis.statistics``)."""
    excursion: float = EXCURSION_PRIOR
    """The prior chance that a step departs for one boundary (the same model's)."""
    delta: float = MOVE_DELTA
    """The size of a move sought: a step is in doubt while its chance of having moved by at
    least this is (0: moved at all)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0 <= self.low < self.high <= 1:
            raise ValueError(f"need 0 <= low < high <= 1, got {self.low} and {self.high}")

    def later_round(
        self,
        tallies: Mapping[int, Tally],
        open_: dict[int, Tally],
        size: int,
        width: float,
        cost: Mapping[int, float],
    ) -> list[int]:
        """A round after the first: ``size`` rollouts among the ``open_`` boundaries."""
        weights = dict.fromkeys(open_, 0.0)
        chances = change_chances(tallies, self.change_prior, self.excursion, self.delta)
        for step, chance in chances.items():
            if self.low < chance < self.high:
                for boundary in (step, step + 1):
                    if boundary in weights:
                        weights[boundary] += chance * (1 - chance) * _jump(tallies, step)
        if any(weights.values()):
            extra = dict.fromkeys(open_, 0)
            chosen = []
            for _ in range(size):
                boundary = max(
                    weights,
                    key=lambda b: (weights[b] / (cost[b] * (1 + open_[b].trials + extra[b])), -b),
                )
                extra[boundary] += 1
                chosen.append(boundary)
            return sorted(chosen)
        return _widest(open_, size, width, cost)


def default_schedule() -> Schedule:
    """The schedule ``analyze_trace`` uses when none is given: ``AdaptiveSchedule()``.

    Example:
        >>> default_schedule()
        AdaptiveSchedule(initial=4, round_size=None, top_k=3, change_prior=0.2)

    """
    return AdaptiveSchedule()


def _widest(
    open_: Mapping[int, Tally], size: int, width: float, cost: Mapping[int, float]
) -> list[int]:
    """Up to ``size`` rollouts, one at a time to the widest Wilson interval at least ``width``.

    The rollouts already handed out this round count at their boundary's current rate; with
    prices, the widest per token (``cost``: each boundary's price over the mean price).
    """
    extra = dict.fromkeys(open_, 0)
    chosen: list[int] = []
    for _ in range(size):
        widths = {b: wilson_width(t.rate, t.trials + extra[b]) for b, t in open_.items()}
        boundary = max(widths, key=lambda b: (widths[b] / cost[b], -b))
        if widths[boundary] < width:
            break
        extra[boundary] += 1
        chosen.append(boundary)
    return sorted(chosen)


def _relative(open_: Mapping[int, Tally], prices: Prices | None) -> dict[int, float]:
    """Each open boundary's price over the mean price (all 1.0 without prices).

    Example:
        >>> _relative({0: Tally(0, 0), 1: Tally(0, 0)}, {0: 300, 1: 100})
        {0: 1.5, 1: 0.5}

    """
    if not prices:
        return dict.fromkeys(open_, 1.0)
    mean = sum(prices[b] for b in open_) / len(open_)
    return {b: max(prices[b], 1) / max(mean, 1) for b in open_}


def _jump(tallies: Mapping[int, Tally], step: int) -> float:
    """The apparent size of ``step``: the difference of its boundaries' smoothed rates."""

    def rate(tally: Tally) -> float:
        return tally.rate if tally.exact else (tally.successes + 1) / (tally.trials + 2)

    return abs(rate(tallies[step + 1]) - rate(tallies[step]))
