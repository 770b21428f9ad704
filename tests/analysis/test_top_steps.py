"""The top-k schedule: its allocation on hand-made tallies, and that it finds the top step."""

from __future__ import annotations

import itertools
import random

import pytest

from llenvs.analysis import AdaptiveSchedule, AnalysisParams, FixedSchedule, Tally, analyze_trace
from llenvs.analysis.statistics import (
    CHANGE_PRIOR,
    rank_chances,
    top_k_membership,
    top_k_membership_of,
    top_steps_round,
    value_draws,
)
from tests.analysis.coin_backend import CoinBackend, jumpy_values

SETTLED = Tally(60, 120)
"""A well-sampled flat boundary (rate 0.5)."""


def test_a_separated_top_k_asks_for_nothing():
    tallies = {0: Tally(0, 200), 1: Tally(200, 200), 2: Tally(200, 200), 3: Tally(199, 200)}
    assert top_steps_round(tallies, top_k=1, size=8) == []
    assert top_k_membership(tallies, 1) == {0: 1.0, 1: 0.0, 2: 0.0}


def test_rollouts_go_to_the_boundaries_of_the_contending_steps():
    tallies = {
        0: SETTLED,
        1: SETTLED,
        2: Tally(7, 8),
        3: Tally(4, 8),
        4: Tally(4, 8),
        5: Tally(1, 8),
    }
    chosen = top_steps_round(tallies, top_k=1, size=12)
    assert len(chosen) == 12
    assert set(chosen) <= {1, 2, 3, 4, 5}  # step 0 (boundaries 0, 1) is flat and settled
    assert 0 not in chosen


def test_the_more_uncertain_boundary_of_a_contender_gets_more():
    # step 0 contends with step 1 for first place; boundary 0 is barely sampled, boundary 1 well
    tallies = {0: Tally(1, 4), 1: Tally(60, 80), 2: Tally(25, 80)}
    chosen = top_steps_round(tallies, top_k=1, size=10)
    assert chosen.count(0) > chosen.count(2)


def test_a_boundary_shared_by_two_contenders_counts_for_both():
    tallies = {0: Tally(2, 6), 1: Tally(4, 6), 2: Tally(2, 6)}
    chosen = top_steps_round(tallies, top_k=1, size=1)
    assert chosen == [1]


def test_rank_chances_grow_with_the_threshold_and_the_round_is_reproducible():
    tallies = {b: Tally(s, 6) for b, s in enumerate((1, 5, 2, 4, 3))}
    for chances in rank_chances(tallies, 3).values():
        assert chances == sorted(chances)
    # a draw whose largest steps tie (one stretch: all 0) has no strict leader
    assert 0 < sum(c[0] for c in rank_chances(tallies, 3).values()) <= 1
    alone = rank_chances(tallies, 3, change_prior=None)  # continuous draws never tie
    assert sum(c[0] for c in alone.values()) == pytest.approx(1.0)
    assert top_steps_round(tallies, 3, 5) == top_steps_round(dict(tallies), 3, 5)


def test_no_round_without_a_top_k_or_a_size_and_bad_arguments_fail_early():
    tallies = {0: Tally(1, 4), 1: Tally(3, 4), 2: Tally(2, 4)}
    assert top_steps_round(tallies, top_k=0, size=4) == []
    assert top_steps_round(tallies, top_k=1, size=0) == []
    with pytest.raises(ValueError, match="confidence must be in"):
        top_steps_round(tallies, 1, 4, confidence=0.4)
    with pytest.raises(ValueError, match="draws must be >= 1"):
        rank_chances(tallies, 1, draws=0)
    with pytest.raises(ValueError, match="top_k must be >= 0"):
        AdaptiveSchedule(top_k=-1)


def test_the_adaptive_schedule_narrows_widths_once_the_top_k_is_settled():
    tallies = {0: Tally(0, 200), 1: Tally(200, 200), 2: Tally(200, 200), 3: Tally(3, 6)}
    # step 2 (1.0 -> 0.5) is first for sure, step 0 second: settled, so the widest goes next
    assert AdaptiveSchedule(top_k=2).next_round(tallies, 4, 0.3) == [3, 3, 3, 3]
    assert AdaptiveSchedule().top_k == 3


CURVES = 150
BUDGET = 8 * 11
"""8 rollouts per boundary of the 11-boundary sample trace: 25% of a k = 32 pass."""


def value_curve(rng: random.Random) -> list[float]:
    """11 values (the sample trace's boundaries): see ``jumpy_values``."""
    return jumpy_values(rng, 11)


def test_the_top_k_schedule_finds_the_true_top_step_more_often_than_fixed(trace, environment):
    right = str(trace.task.expected_answer)
    found = {"adaptive": 0, "fixed": 0}
    spent = {"adaptive": 0, "fixed": 0}
    for number in range(CURVES):
        values = value_curve(random.Random(number))
        sizes = [abs(b - a) for a, b in itertools.pairwise(values)]
        top = max(range(10), key=lambda s: sizes[s])
        coin = CoinBackend(trace, values, right)
        for name, schedule in (("adaptive", AdaptiveSchedule()), ("fixed", FixedSchedule())):
            params = AnalysisParams(budget=BUDGET, width=0.01, seed=number)
            analysis = analyze_trace(
                trace, coin, params, schedule=schedule, environment=environment
            )
            found[name] += analysis.ranking()[0] == top
            spent[name] += len(analysis.rollouts)
    print(f"true top step over {CURVES} curves: {found} (rollouts {spent})")
    assert spent["adaptive"] == spent["fixed"] == CURVES * BUDGET
    assert found["adaptive"] > found["fixed"]


@pytest.mark.parametrize("change_prior", [CHANGE_PRIOR, None])
def test_membership_over_given_draws_equals_membership_drawing_its_own(change_prior):
    tallies = {b: Tally(s, 8) for b, s in enumerate((1, 7, 6, 2, 2, 8))}
    tallies[6] = Tally(1, 1, exact=True)
    for draws, top_k in ((50, 1), (200, 3), (200, 6)):
        made = value_draws(tallies, draws, change_prior)
        assert top_k_membership_of(made, top_k) == top_k_membership(
            tallies, top_k, draws, change_prior
        )
    assert top_k_membership_of([], 2) == {}
    with pytest.raises(ValueError, match="top_k must be >= 1"):
        top_k_membership_of(made, 0)
