"""The benchmark on real curves (``bench/thought_anchors.py``): its simulation is analyze's loop.

The simulation runs ``analyze_trace``'s round loop at the schedule level on Thought Anchors'
published curves; these tests check it against the real loop (on a trace whose outcomes are
certain, so both see the same draws), that it spends the budget and counts the exact end, and
that what it scores is scored against the published accuracies.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType
from typing import Any

import pytest

from llenvs.analysis import (
    AdaptiveSchedule,
    AnalysisParams,
    FixedSchedule,
    Schedule,
    analyze_trace,
)
from llenvs.analysis.sampling import rollout_prices, spent
from llenvs.analysis.statistics import Tally, tallies
from llenvs.evaluation import trace_environment
from llenvs.traces import read_traces
from tests.analysis.coin_backend import CoinBackend
from tests.conftest import EXTERNAL, REPO

SHORT = EXTERNAL / "thought_anchors" / "deepseek-r1-distill-llama-8b" / "incorrect_base_solution"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    sys.path.insert(0, str(REPO / "bench"))  # the script imports bench_common as a sibling
    try:
        spec = importlib.util.spec_from_file_location(
            "bench_thought_anchors", REPO / "bench" / "thought_anchors.py"
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # its dataclasses look their module up by name
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(REPO / "bench"))
    return module


@pytest.fixture(scope="module")
def short(bench: ModuleType) -> Any:
    """The 24-chunk incorrect solution of problem 2189, as a curve."""
    [curve] = bench.curves(SHORT / "problem_2189")
    return curve


@pytest.mark.parametrize(
    "schedule", [FixedSchedule(), AdaptiveSchedule(), AdaptiveSchedule(top_k=0)], ids=repr
)
def test_the_simulation_gives_the_tallies_analyze_trace_gives(
    bench: ModuleType, schedule: Schedule
) -> None:
    # values of 0 and 1 make every rollout certain, so both loops see the same outcomes and
    # differ only if they hand out rollouts differently
    trace = next(iter(read_traces(REPO / "tests" / "data" / "leg_counting_first_two.jsonl")))
    values = [0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0]
    params = AnalysisParams(budget=100_000, token_budget=500, width=0.2, max_tokens=8)
    prices = rollout_prices(trace, params, range(10))
    assert prices[9] == 2 and prices[0] == 8  # the trace wrote 2 tokens after boundary 9
    lengths = [prices[b] for b in range(10)] + [1]  # each rollout generates its price
    coin = CoinBackend(trace, values, str(trace.task.expected_answer), lengths)
    environment = trace_environment(trace, coin)
    real = analyze_trace(trace, coin, params, schedule=schedule, environment=environment)
    tokens = tuple(float(prices[b]) for b in range(10))
    curve = bench.Curve("leg", tuple(values[:-1]), bool(trace.success), tokens)
    counted, rounds = bench.simulate(curve, schedule, 500, params.width, seed=0, limit=8)
    assert counted == {**tallies(real.rollouts, range(10)), 10: Tally(0, 1, exact=True)}
    assert rounds == real.rounds
    assert spent(real.rollouts) == sum(counted[b].trials * prices[b] for b in range(10)) <= 500


def test_the_budget_is_spent_and_the_exact_end_counted(bench: ModuleType, short: Any) -> None:
    budget = 0.1 * 100 * sum(short.tokens)  # 10% of Thought Anchors' tokens
    for schedule in (FixedSchedule(), AdaptiveSchedule()):
        counted, _ = bench.simulate(short, schedule, budget, 0.2, seed=3)
        used = sum(counted[b].trials * short.tokens[b] for b in range(len(short.values)))
        assert budget - max(short.tokens) < used <= budget  # all but less than one rollout
        assert counted[len(short.values)] == Tally(0, 1, exact=True)  # the incorrect solution
        analysis = bench.analysis_of(short, counted, seed=3)
        assert analysis.values[-1].exact and analysis.values[-1].value == 0.0
        result = bench.score(short, analysis, counted)
        assert (
            result.tokens == pytest.approx(used) and result.tokens <= 0.1 * result.reference_tokens
        )


def test_coverage_is_scored_against_the_published_curve(bench: ModuleType, short: Any) -> None:
    # at 4,000 rollouts a boundary the estimates sit on the published accuracies
    budget = 4_000 * sum(short.tokens)  # 4,000 rollouts a boundary
    counted, _ = bench.simulate(short, FixedSchedule(per_round=400), budget, 0.2, seed=0)
    analysis = bench.analysis_of(short, counted, seed=0)
    result = bench.score(short, analysis, counted)
    assert result.values == result.steps == len(short.values) == 24  # the exact end: no value
    assert result.error / result.values < 0.01
    assert result.values_covered >= 20
    assert result.steps_covered >= 20
    wrong = bench.Curve(short.name, tuple(1 - v for v in short.values), False, short.tokens)
    assert bench.score(wrong, analysis, counted).values_covered < result.values_covered
