"""The changepoint posterior against brute force, and its draws against its chances."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llenvs.analysis.changepoints import change_chances, curve_draws
from llenvs.analysis.tally import Tally


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


@settings(max_examples=60, deadline=None)
@given(st.lists(tally, min_size=2, max_size=7), st.sampled_from([0.1, 0.2, 0.5]))
def test_the_chances_are_the_brute_force_sums(chain, prior):
    chances = change_chances(dict(enumerate(chain)), prior)
    assert [chances[k] for k in range(len(chain) - 1)] == pytest.approx(brute_force(chain, prior))


def test_an_exact_end_is_respected_and_two_exact_values_never_share_a_stretch():
    chain = [Tally(3, 6), Tally(6, 6), Tally(1, 1, exact=True)]
    expected = brute_force(chain, 0.2)
    chances = change_chances(dict(enumerate(chain)), 0.2)
    assert [chances[0], chances[1]] == pytest.approx(expected)
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
