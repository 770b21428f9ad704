"""The paired comparison of two runs: McNemar's exact test and the paired-bootstrap interval."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from llenvs.analysis import compare_paired, mcnemar_p_value

verdicts = st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=60)


@settings(max_examples=60, deadline=None)
@given(verdicts)
def test_the_interval_holds_the_difference_and_swapping_the_runs_negates_it(pairs):
    first, second = [a for a, _ in pairs], [b for _, b in pairs]
    forward, backward = compare_paired(first, second), compare_paired(second, first)
    assert forward.interval.low <= forward.difference <= forward.interval.high
    assert math.isclose(forward.difference, -backward.difference, abs_tol=1e-12)
    assert forward.p_value == backward.p_value and 0 < forward.p_value <= 1
    assert forward.second_successes - forward.first_successes == (
        forward.only_second - forward.only_first
    )


def test_mcnemar_matches_the_binomial_tail_by_hand():
    # 1 against 9 discordant pairs: 2 * (C(10,0) + C(10,1)) / 2**10
    assert math.isclose(mcnemar_p_value(1, 9), 2 * 11 / 1024)
    assert mcnemar_p_value(5, 5) == 1.0


def test_identical_runs_differ_by_nothing_with_a_point_interval():
    result = compare_paired([True, False, True], [True, False, True])
    assert result.difference == 0 and result.interval.width == 0 and result.p_value == 1.0


def test_pairing_narrows_the_interval_against_unpaired_rates():
    # the second run solves what the first did and one more in every ten tasks
    first = [n % 2 == 0 for n in range(100)]
    second = [a or n % 10 == 1 for n, a in enumerate(first)]
    result = compare_paired(first, second)
    assert math.isclose(result.difference, 0.1)
    # two independent rates near 0.5 and 0.6 on 100 tasks each give about ±0.14
    assert result.interval.width < 0.14 and result.interval.low > 0
