"""A value curve that moves at few steps, with short excursions: the posterior of its values.

Most steps of a reasoning trace leave the chance of success where it was; a few move it (the
"thought anchors"), and on real traces some move it only for a sentence or two (a wrong
turn taken back). Estimating each ``v_i`` alone and ranking steps by ``|v_{i+1} - v_i|``
makes every flat step look as if it moved by its sampling noise. Here the values are a curve
that is constant between changes, read as a hidden Markov chain over the boundaries:

* each step is a change with prior chance ``prior``: the next value is drawn anew (uniform);
* each step starts an *excursion* with prior chance ``excursion``: one boundary takes a
  value of its own (uniform) and the curve comes back to where it was at the next boundary.
  A dip that reverts costs one excursion, where a curve of changes only would need two
  changes, which is why the flat-between-changes model missed most one-sentence dips of
  Thought Anchors' published curves (``bench/thought_anchors.py``);
* each boundary's rollouts are binomial draws at its value; an exact tally (an ended trace's
  own outcome) fixes it.

Values live on a grid of ``GRID_POINTS`` points in [0, 1] (0.01 apart, the uniform prior
weighted as the trapezoid rule weights them; an exact value snaps to the nearest), so the
forward-backward sums are exact for that grid in O(n x grid), with no enumeration of the
splits into stretches. With ``excursion=0`` this is the changepoint model
of a product partition (tested against brute force over every split, to the grid's
precision). ``change_chances`` gives each step's chance of having moved the value by at least
``delta`` (from the joint posterior of its two boundaries' values, not from two marginals;
``delta=0``: moved at all), ``curve_draws`` joint draws of every boundary's value, from which
a step's size ``|Δ|``, its rank and its chance of being among the top k follow.

``bench/analysis_simulated.py`` measures what ranking steps by the posterior mean size gains
over ranking them by the raw differences, on simulated curves with 1-3 jumps, and
``bench/thought_anchors.py`` how many of the real curves' moves it finds (``docs/benchmarks.md``).

Example:
    >>> from llenvs.analysis.statistics._tally import Tally
    >>> tallies = {0: Tally(2, 8), 1: Tally(3, 8), 2: Tally(8, 8), 3: Tally(7, 8)}
    >>> {step: round(p, 2) for step, p in change_chances(tallies).items()}
    {0: 0.18, 1: 0.97, 2: 0.13}
    >>> {step: round(p, 2) for step, p in change_chances(tallies, delta=MOVE_DELTA).items()}
    {0: 0.09, 1: 0.95, 2: 0.04}
    >>> draws = curve_draws(tallies, 3, random.Random(0))
    >>> len(draws), sorted(draws[0])
    (3, [0, 1, 2, 3])

"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from llenvs.analysis.statistics._tally import Tally

__all__ = [
    "CHANGE_PRIOR",
    "EXCURSION_PRIOR",
    "GRID_POINTS",
    "MOVE_DELTA",
    "change_chances",
    "curve_draws",
]

CHANGE_PRIOR = 0.2
"""The prior chance that a step moves the value for good (0.1-0.3 ranked alike in the
simulation)."""

EXCURSION_PRIOR = 0.03
"""The prior chance that the boundary after a step departs for that boundary only.

On Thought Anchors' 20 published curves, at a quarter of their rollouts (the ``moves``
schedule, 5 seeds), no excursions find 0.78 of the moves of 0.2 or more, 0.03 finds 0.81,
0.05 0.82 and 0.1 0.82, each with more false calls (precision 0.28, 0.26, 0.24, 0.20).
Larger priors also keep more flat steps from being ruled out of a top k: a flat step's chance
of having moved cannot fall far below the prior's share without many rollouts."""

MOVE_DELTA = 0.2
"""The size of a move that matters: a step *moved* the value when ``|v_{i+1} - v_i|`` is at
least this. 0.2 is Thought Anchors' scale of a large move (and the truth of
``bench/thought_anchors.py``); a change of any size is the question ``delta=0`` asks, which
more rollouts answer "yes" for ever smaller changes."""

GRID_POINTS = 101
"""Points of the value grid in [0, 1]."""

_GRID = np.linspace(0.0, 1.0, GRID_POINTS)


def _weights(grid: np.ndarray) -> np.ndarray:
    """The uniform prior on ``grid``: trapezoid weights (the two ends half), summing to 1."""
    weights = np.ones(len(grid))
    weights[[0, -1]] = 0.5
    normalised: np.ndarray = weights / weights.sum()
    return normalised


def change_chances(
    tallies: Mapping[int, Tally],
    prior: float = CHANGE_PRIOR,
    excursion: float = EXCURSION_PRIOR,
    delta: float = 0.0,
) -> dict[int, float]:
    """Each step's posterior chance that ``|v_{i+1} - v_i| >= delta`` (between tallied boundaries).

    With ``delta=0`` a step moved the value unless both its boundaries sit at the same value: a
    change, an excursion at either boundary, or a return from one, all count, however small.
    With ``delta > 0`` the chance is the mass of the two boundaries' joint posterior at least
    ``delta`` apart (values on the grid, 0.01 apart).

    Example:
        >>> round(change_chances({0: Tally(0, 20), 1: Tally(20, 20)})[0], 6)
        1.0
        >>> change_chances({4: Tally(1, 2)})
        {}
        >>> dip = {0: Tally(16, 16), 1: Tally(10, 16), 2: Tally(16, 16), 3: Tally(16, 16)}
        >>> [round(p, 2) for p in change_chances(dip).values()]
        [0.94, 0.97, 0.03]
        >>> [round(p, 2) for p in change_chances(dip, excursion=0).values()]
        [0.64, 0.81, 0.04]
        >>> [round(p, 2) for p in change_chances(dip, delta=0.2).values()]
        [0.87, 0.89, 0.0]

    """
    _check(prior, excursion)
    if not 0 <= delta <= 1:
        raise ValueError(f"delta, the size of a move, must be in [0, 1], got {delta}")
    chances: dict[int, float] = {}
    for start, chain in _chains(tallies):
        model = _Chain(chain, prior, excursion)
        for k, chance in enumerate(model.moved_by(delta) if delta > 0 else model.moved()):
            chances[start + k] = chance
    return chances


def curve_draws(
    tallies: Mapping[int, Tally],
    draws: int,
    rng: random.Random,
    prior: float = CHANGE_PRIOR,
    excursion: float = EXCURSION_PRIOR,
) -> list[dict[int, float]]:
    """``draws`` joint posterior draws of every tallied boundary's value (seeded by ``rng``).

    Example:
        >>> [d[1] for d in curve_draws({0: Tally(1, 1, exact=True), 1: Tally(9, 9)}, 2,
        ...                            random.Random(1))]
        [1.0, 1.0]

    """
    _check(prior, excursion)
    generator = np.random.default_rng(rng.getrandbits(64))
    columns: dict[int, np.ndarray] = {}
    for start, chain in _chains(tallies):
        values = _Chain(chain, prior, excursion).draw(draws, generator)
        for offset in range(len(chain)):
            columns[start + offset] = values[:, offset]
    rows = np.column_stack(list(columns.values())) if columns else np.empty((draws, 0))
    names = list(columns)
    return [dict(zip(names, row, strict=True)) for row in rows.tolist()]


def _check(prior: float, excursion: float) -> None:
    if not 0 < prior < 1:
        raise ValueError(f"the change prior must be in (0, 1), got {prior}")
    if not 0 <= excursion < 1 - prior:
        raise ValueError(
            f"the excursion prior must be in [0, 1 - change prior) = [0, {1 - prior:g}), "
            f"got {excursion}"
        )


def _chains(tallies: Mapping[int, Tally]) -> list[tuple[int, list[Tally]]]:
    """The runs of consecutive boundaries (steps lie only between neighbours)."""
    chains: list[tuple[int, list[Tally]]] = []
    for boundary in sorted(tallies):
        if chains and chains[-1][0] + len(chains[-1][1]) == boundary:
            chains[-1][1].append(tallies[boundary])
        else:
            chains.append((boundary, [tallies[boundary]]))
    return chains


def _likelihood(tally: Tally, grid: np.ndarray) -> np.ndarray:
    """The chance of ``tally`` at each value of ``grid`` (0 to 1), scaled so its largest is 1."""
    if tally.exact:
        point = np.zeros(len(grid))
        point[int(np.argmin(np.abs(grid - tally.rate)))] = 1.0
        return point
    successes, failures = tally.successes, tally.trials - tally.successes
    with np.errstate(divide="ignore", invalid="ignore"):
        log = successes * np.log(grid) + failures * np.log1p(-grid)
    log[0] = 0.0 if successes == 0 else -np.inf  # 0 ** 0 = 1
    log[-1] = 0.0 if failures == 0 else -np.inf
    scaled: np.ndarray = np.exp(log - log.max())
    return scaled


@dataclass
class _Chain:
    """The forward and backward sums of one run of boundaries, and draws from its posterior.

    The states at boundary s: *settled* at grid value u (``settled[s, u]``) or *away* on an
    excursion from u (``away[s, u]``, its own value summed out: ``mean[s]``). From settled u
    the next boundary stays at u (1 - prior - excursion), is drawn anew (prior, uniform) or
    goes away from u (excursion); from away it comes back to u (1 - prior) or is drawn anew
    (prior). The forward sums are scaled to 1 at each boundary (``scale``).
    """

    chain: list[Tally]
    prior: float
    excursion: float
    grid: np.ndarray = field(default_factory=lambda: _GRID)
    """The values a boundary may take (a coarser one lets a test enumerate every path)."""

    def __post_init__(self) -> None:
        n, points = len(self.chain), len(self.grid)
        self.like = np.array([_likelihood(t, self.grid) for t in self.chain])
        self.weights = _weights(self.grid)
        self.mean = self.like @ self.weights
        self.stay = 1.0 - self.prior - self.excursion
        self.settled = np.zeros((n, points))
        self.away = np.zeros((n, points))
        self.scale = np.ones(n)
        settled = (1 - self.excursion) * self.weights * self.like[0]
        away = self.excursion * self.weights * self.mean[0]
        for s in range(n):
            if s > 0:
                before, away_before = self.settled[s - 1], self.away[s - 1]
                anew = self.prior * (before.sum() + away_before.sum()) * self.weights
                settled = (self.stay * before + (1 - self.prior) * away_before + anew) * self.like[
                    s
                ]
                away = self.excursion * before * self.mean[s]
            self.scale[s] = settled.sum() + away.sum()
            self.settled[s], self.away[s] = settled / self.scale[s], away / self.scale[s]
        self.settled_back = np.ones((n, points))
        self.away_back = np.ones((n, points))
        for s in range(n - 2, -1, -1):
            ahead = self.like[s + 1] * self.settled_back[s + 1]
            anew = self.prior * (ahead @ self.weights)
            self.settled_back[s] = (
                self.stay * ahead + anew + self.excursion * self.mean[s + 1] * self.away_back[s + 1]
            ) / self.scale[s + 1]
            self.away_back[s] = ((1 - self.prior) * ahead + anew) / self.scale[s + 1]

    def moved(self) -> list[float]:
        """Each step's chance that its two boundaries do not sit at the same value."""
        same = [
            float(
                (
                    self.settled[s]
                    * (self.stay + self.prior * self.weights)
                    * self.like[s + 1]
                    * self.settled_back[s + 1]
                ).sum()
                / self.scale[s + 1]
            )
            for s in range(len(self.chain) - 1)
        ]
        return [min(1.0, max(0.0, 1.0 - chance)) for chance in same]

    def moved_by(self, delta: float) -> list[float]:
        """Each step's chance that its two boundaries' values are at least ``delta`` apart.

        The joint posterior of boundaries s and s+1 is a sum of products (a value at s times
        one at s+1), one per kind of transition: stay (no move), settled u to a new settled u',
        settled u to away (s+1's own value, from its rollouts alone: ``own``), away back to u,
        away to a new u'. Each product's mass at least ``delta`` apart is ``x . (far y)``.
        """
        if len(self.chain) < 2:
            return []
        grid = self.grid
        far = (np.abs(grid[:, None] - grid[None, :]) >= delta - 1e-9).astype(float)
        own = self.like * self.weights / self.mean[:, None]
        scale = self.scale[1:, None]
        settled, away = self.settled[:-1], self.away[:-1]
        ahead = self.like[1:] * self.settled_back[1:] / scale
        anew = self.prior * self.weights * ahead  # to a new settled u' (from settled or away)
        back = (1 - self.prior) * away * ahead  # away from u, back to u
        leave = self.excursion * settled * self.mean[1:, None] * self.away_back[1:] / scale
        chances = (
            (settled * (anew @ far)).sum(axis=1)
            + (leave * (own[1:] @ far)).sum(axis=1)
            + (own[:-1] * (back @ far)).sum(axis=1)
            + away.sum(axis=1) * (own[:-1] * (anew @ far)).sum(axis=1)
        )
        return [min(1.0, max(0.0, float(chance))) for chance in chances]

    def draw(self, draws: int, generator: np.random.Generator) -> np.ndarray:
        """``draws`` joint draws of the run's values (rows): the states from the end back."""
        n, points = len(self.chain), len(self.grid)
        values = np.zeros((draws, n))
        last = np.cumsum(np.concatenate([self.settled[-1], self.away[-1]]))
        state = np.minimum(
            np.searchsorted(last, generator.random(draws) * last[-1], side="right"), 2 * points - 1
        )
        for s in range(n - 1, -1, -1):
            is_away, level = state >= points, state % points
            values[:, s] = np.where(is_away, 0.0, self.grid[level])
            if is_away.any():  # an excursion's own value, from its rollouts alone
                own = np.cumsum(self.like[s] * self.weights)
                picked = np.searchsorted(
                    own, generator.random(int(is_away.sum())) * own[-1], "right"
                )
                values[is_away, s] = self.grid[np.minimum(picked, points - 1)]
            if s == 0:
                break
            before, away_before = self.settled[s - 1], self.away[s - 1]
            # what led here: settled u came from settled u (stay), from away from u (return)
            # or from anywhere (anew); away from u came from settled u
            pool = np.cumsum(np.concatenate([before, away_before]))
            anew = self.prior * self.weights[level] * pool[-1]
            stay = np.where(is_away, 0.0, self.stay * before[level])
            back = np.where(is_away, 0.0, (1 - self.prior) * away_before[level])
            roll = generator.random(draws) * (stay + back + anew)
            fresh = np.minimum(
                np.searchsorted(pool, generator.random(draws) * pool[-1], side="right"),
                2 * points - 1,
            )
            state = np.where(
                is_away | (roll < stay), level, np.where(roll < stay + back, points + level, fresh)
            )
        return values
