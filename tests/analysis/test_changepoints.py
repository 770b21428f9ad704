"""The curve posterior against brute force, and its draws against its chances.

Two brute forces: without excursions, the continuous changepoint model summed over every split
into stretches (the grid of 101 values reproduces it to 0.01, the trapezoid rule's error on
its Beta integrals); with them, every path of states of the grid model itself, on a grid of 5
values (the forward-backward sums exactly).
"""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llenvs.analysis.statistics import Tally
from llenvs.analysis.statistics._changepoints import _Chain, change_chances, curve_draws


def brute_force(chain: list[Tally], prior: float) -> list[float]:
    """P(change at each step), summing over every split into stretches (2^(n-1) of them)."""
    steps = len(chain) - 1
    weight_with = [0.0] * steps
    total = 0.0
    for changes in itertools.product((False, True), repeat=steps):
        weight = math.prod(prior if c else 1 - prior for c in changes)
        starts = [0] + [k + 1 for k, c in enumerate(changes) if c] + [len(chain)]
        for i, j in itertools.pairwise(starts):
            block = chain[i:j]
            exact = {t.rate for t in block if t.exact}
            s = sum(t.successes for t in block if not t.exact)
            f = sum(t.trials - t.successes for t in block if not t.exact)
            if len(exact) > 1:
                weight = 0.0
            elif exact:
                (x,) = exact
                weight *= x**s * (1 - x) ** f
            else:
                weight *= math.gamma(s + 1) * math.gamma(f + 1) / math.gamma(s + f + 2)
        total += weight
        for k, c in enumerate(changes):
            if c:
                weight_with[k] += weight
    return [w / total for w in weight_with]


tally = st.builds(lambda n, share: Tally(round(n * share), n), st.integers(0, 6), st.floats(0, 1))


def every_path(chain: list[Tally], prior: float, excursion: float, grid: np.ndarray) -> list[float]:
    """P(a step's boundaries differ), summing over every path of the grid model's states."""
    weights = _Chain(chain, prior, excursion, grid).weights  # the prior on the grid
    like = [_Chain([t], prior, excursion, grid).like[0] for t in chain]
    states = [(away, u) for away in (False, True) for u in range(len(grid))]

    def emission(b: int, state: tuple[bool, int]) -> float:
        away, u = state
        return float(like[b] @ weights if away else like[b][u])

    def step(a: tuple[bool, int], b: tuple[bool, int]) -> float:
        if b[0]:  # away from u: only from settled u
            return excursion if not a[0] and a[1] == b[1] else 0.0
        kept = (1 - prior - excursion) if not a[0] else (1 - prior)
        return prior * weights[b[1]] + (kept if a[1] == b[1] else 0.0)

    total, differ = 0.0, [0.0] * (len(chain) - 1)
    for path in itertools.product(states, repeat=len(chain)):
        away, u = path[0]
        weight = (excursion if away else 1 - excursion) * weights[u] * emission(0, path[0])
        for b in range(1, len(chain)):
            weight *= step(path[b - 1], path[b]) * emission(b, path[b])
        total += weight
        for k in range(len(chain) - 1):
            if path[k][0] or path[k + 1][0] or path[k][1] != path[k + 1][1]:
                differ[k] += weight
    return [d / total for d in differ]


@settings(max_examples=60, deadline=None)
@given(st.lists(tally, min_size=2, max_size=7), st.sampled_from([0.1, 0.2, 0.5]))
def test_without_excursions_the_chances_are_the_changepoint_sums(chain, prior):
    chances = change_chances(dict(enumerate(chain)), prior, excursion=0)
    expected = brute_force(chain, prior)
    assert [chances[k] for k in range(len(chain) - 1)] == pytest.approx(expected, abs=0.01)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(tally, min_size=2, max_size=4),
    st.sampled_from([0.1, 0.3]),
    st.sampled_from([0.0, 0.05, 0.2]),
)
def test_the_forward_backward_sums_are_every_path_of_the_grid_model(chain, prior, excursion):
    grid = np.linspace(0, 1, 5)
    chances = _Chain(chain, prior, excursion, grid).moved()
    assert chances == pytest.approx(every_path(chain, prior, excursion, grid), abs=1e-9)


def every_valued_path(
    chain: list[Tally], prior: float, excursion: float, grid: np.ndarray, delta: float
) -> list[float]:
    """P(a step's boundaries' values are ``delta`` apart), over every path and every value.

    An away state's own value is a state of its own here (``(True, u, w)``: away from u, at w),
    so the brute force makes no use of the model's summing out of it.
    """
    weights = _Chain(chain, prior, excursion, grid).weights
    like = [_Chain([t], prior, excursion, grid).like[0] for t in chain]
    points = range(len(grid))
    states = [(False, u, u) for u in points] + [(True, u, w) for u in points for w in points]

    def step(a: tuple[bool, int, int], b: tuple[bool, int, int]) -> float:
        if b[0]:  # away from u at w: only from settled u, w drawn from the prior
            return excursion * weights[b[2]] if not a[0] and a[1] == b[1] else 0.0
        kept = (1 - prior - excursion) if not a[0] else (1 - prior)
        return prior * weights[b[1]] + (kept if a[1] == b[1] else 0.0)

    total, apart = 0.0, [0.0] * (len(chain) - 1)
    for path in itertools.product(states, repeat=len(chain)):
        away, u, w = path[0]
        weight = (excursion * weights[w] if away else 1 - excursion) * weights[u] * like[0][w]
        for b in range(1, len(chain)):
            weight *= step(path[b - 1], path[b]) * like[b][path[b][2]]
        total += weight
        for k in range(len(chain) - 1):
            if abs(grid[path[k][2]] - grid[path[k + 1][2]]) >= delta - 1e-9:
                apart[k] += weight
    return [a / total for a in apart]


@settings(max_examples=30, deadline=None)
@given(
    st.lists(tally, min_size=2, max_size=3),
    st.sampled_from([0.1, 0.3]),
    st.sampled_from([0.0, 0.05, 0.2]),
    st.sampled_from([0.25, 0.5, 1.0]),
)
def test_the_chance_of_a_move_of_delta_is_every_valued_path(chain, prior, excursion, delta):
    grid = np.linspace(0, 1, 5)
    chances = _Chain(chain, prior, excursion, grid).moved_by(delta)
    expected = every_valued_path(chain, prior, excursion, grid, delta)
    assert chances == pytest.approx(expected, abs=1e-9)


def test_a_move_of_delta_is_rarer_than_a_move_and_matches_the_draws():
    tallies = {b: Tally(s, 12) for b, s in enumerate((2, 3, 2, 8, 9, 6, 11, 11))}
    at_all = change_chances(tallies)
    large = change_chances(tallies, delta=0.2)
    assert all(large[s] <= at_all[s] + 1e-9 for s in at_all)
    draws = curve_draws(tallies, 4000, random.Random(0))
    for step, chance in large.items():
        seen = sum(abs(d[step] - d[step + 1]) >= 0.2 - 1e-9 for d in draws) / len(draws)
        assert seen == pytest.approx(chance, abs=0.03)
    assert change_chances(tallies, delta=1.0)[3] < 1e-6  # no step spans the whole range
    with pytest.raises(ValueError, match=r"delta, the size of a move, must be in \[0, 1\]"):
        change_chances(tallies, delta=1.5)


def test_an_excursion_costs_less_than_two_changes():
    dip = {0: Tally(20, 20), 1: Tally(14, 20), 2: Tally(20, 20), 3: Tally(20, 20)}
    with_ = change_chances(dip)
    without = change_chances(dip, excursion=0)
    assert with_[0] > without[0] and with_[1] > without[1]  # both sides of the dip
    assert with_[2] < 0.25  # the flat step after it stays flat


def test_an_exact_end_is_respected_and_two_exact_values_never_share_a_stretch():
    chain = [Tally(3, 6), Tally(6, 6), Tally(1, 1, exact=True)]
    expected = brute_force(chain, 0.2)
    chances = change_chances(dict(enumerate(chain)), 0.2, excursion=0)
    assert [chances[0], chances[1]] == pytest.approx(expected, abs=0.01)
    assert chances[1] < 0.5  # all six right after step 1: likely the same stretch as the end
    both = {0: Tally(1, 1, exact=True), 1: Tally(0, 1, exact=True)}
    assert change_chances(both)[0] == pytest.approx(1.0)
    assert all(d[0] == 1.0 and d[1] == 0.0 for d in curve_draws(both, 5, random.Random(0)))


def test_the_draws_change_where_the_chances_say():
    tallies = {b: Tally(s, 8) for b, s in enumerate((2, 3, 2, 7, 8, 6, 7))}
    chances = change_chances(tallies)
    draws = curve_draws(tallies, 4000, random.Random(0))
    for step, chance in chances.items():
        seen = sum(d[step] != d[step + 1] for d in draws) / len(draws)
        assert seen == pytest.approx(chance, abs=0.03)


def test_runs_of_boundaries_apart_are_separate_curves_and_bad_priors_fail():
    tallies = {0: Tally(0, 9), 1: Tally(9, 9), 5: Tally(0, 9), 6: Tally(0, 9)}
    chances = change_chances(tallies)
    assert set(chances) == {0, 5} and chances[0] > 0.99 > 0.2 > chances[5]
    with pytest.raises(ValueError, match="change prior must be in"):
        change_chances(tallies, prior=1.0)
    with pytest.raises(ValueError, match=r"excursion prior must be in .* = \[0, 0.8\)"):
        change_chances(tallies, excursion=0.8)
