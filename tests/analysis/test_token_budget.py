"""Budgets in tokens: rollouts priced by the trace's length after them, never spent past."""

from __future__ import annotations

import pytest

from llenvs.analysis import AnalysisParams, FixedSchedule, MovesSchedule, analyze_trace, plan
from llenvs.analysis.sampling import affordable, rollout_prices, spent, tokens_after
from llenvs.analysis.statistics import Tally
from tests.analysis.coin_backend import CoinBackend
from tests.analysis.conftest import TRUE_VALUES


@pytest.mark.parametrize("budget", [0, 7, 50, 333, 1000])
def test_a_run_never_spends_past_its_token_budget(trace, coin, environment, budget):
    params = AnalysisParams(budget=10_000, token_budget=budget, max_tokens=8)
    analysis = analyze_trace(trace, coin, params, environment=environment)
    used = spent(analysis.rollouts)
    assert used <= budget
    assert used > budget - 8 - 1 or budget < 8  # all but less than one rollout's worst spent


def test_rollouts_longer_than_their_price_still_fit(trace, environment):
    """The coin writes 8 tokens from every boundary; near the end the trace wrote 2."""
    coin = CoinBackend(trace, TRUE_VALUES, str(trace.task.expected_answer))
    prices = rollout_prices(trace, AnalysisParams(max_tokens=8), range(10))
    assert prices[9] == 2  # priced by what the trace itself wrote after boundary 9
    params = AnalysisParams(budget=10_000, token_budget=100, max_tokens=8)
    analysis = analyze_trace(
        trace, coin, params, environment=environment, boundaries=[9], schedule=FixedSchedule()
    )
    assert {r.tokens for r in analysis.rollouts} == {8}
    assert spent(analysis.rollouts) == 96  # 12 rollouts admitted at their limit of 8: 96 <= 100


def test_a_stored_run_counts_against_the_token_budget(trace, coin, environment, tmp_path):
    store = tmp_path / "t.analysis.jsonl"
    first = AnalysisParams(budget=10_000, token_budget=200, max_tokens=8)
    analyze_trace(trace, coin, first, environment=environment, store=store)
    more = AnalysisParams(budget=10_000, token_budget=400, max_tokens=8)
    again = analyze_trace(trace, coin, more, environment=environment, store=store)
    assert 200 - 8 < spent(again.rollouts[: again.resumed]) <= 200
    assert spent(again.rollouts) <= 400


def test_the_moves_schedule_spends_by_price():
    """Two equally doubtful boundaries: the round goes where a rollout is cheaper."""
    tallies = {b: Tally(20, 40) for b in range(20)}
    tallies[5] = tallies[14] = Tally(30, 40)  # each may sit higher than its neighbours
    alike = MovesSchedule(round_size=20).next_round(tallies, 100, 0.2)
    prices = {b: 100 * (20 - b) for b in range(20)}  # a later boundary is cheaper
    priced = MovesSchedule(round_size=20).next_round(tallies, 100, 0.2, prices=prices)
    assert alike.count(5) == alike.count(14) == 10
    assert priced.count(14) > priced.count(5)


def test_a_round_is_cut_to_what_fits_at_its_worst_cost():
    assert affordable([0, 1, 1, 2], {0: 90, 1: 40, 2: 5}, 100) == [0, 2]
    assert affordable([1, 1, 1], {1: 40}, 100) == [1, 1]


def test_the_plan_buys_what_the_token_budget_allows(trace):
    after = tokens_after(trace)
    per = sum(min(a, 8) for a in after) / len(after)  # every boundary: an unfinished trace
    cost = plan(trace, AnalysisParams(budget=10_000, token_budget=100, max_tokens=8))
    assert cost.rollouts == int(100 // per) and cost.max_tokens == 100, per
    assert cost.estimated_tokens <= 100


def test_a_bad_token_budget_is_refused():
    with pytest.raises(ValueError, match="token_budget must be an int >= 0 or None"):
        AnalysisParams(token_budget=-1)
