"""``FirstDropSchedule`` and ``first_drop``: a bisection for where a failed trace went wrong."""

from __future__ import annotations

import dataclasses
import random

import pytest

from llenvs.analysis import AnalysisParams, analyze_trace
from llenvs.analysis.statistics import FirstDropSchedule, Tally, first_drop
from llenvs.evaluation import trace_environment
from tests.analysis.coin_backend import CoinBackend
from tests.analysis.conftest import open_trace


def search(curve: list[float], seed: int, budget: int = 10_000) -> dict[int, Tally]:
    """The tallies the search reaches on ``curve`` (a failed trace: the end is exact 0)."""
    rng = random.Random(seed)
    tallies = {b: Tally(0, 0) for b in range(len(curve))} | {len(curve): Tally(0, 1, exact=True)}
    schedule = FirstDropSchedule()
    while asked := schedule.next_round(tallies, budget - spent(tallies), 0.3):
        for b in asked:
            t = tallies[b]
            tallies[b] = Tally(t.successes + (rng.random() < curve[b]), t.trials + 1)
    return tallies


def spent(tallies: dict[int, Tally]) -> int:
    return sum(t.trials for t in tallies.values() if not t.exact)


@pytest.mark.parametrize("drop", [3, 17, 41, 58])
def test_a_drop_for_good_is_found_within_a_step_with_few_rollouts(drop: int) -> None:
    curve = [0.8] * (drop + 1) + [0.15] * (59 - drop)  # 60 boundaries; drops across ``drop``
    found = [first_drop(tallies := search(curve, seed)) for seed in range(20)]
    hits = sum(f.step is not None and abs(f.step - drop) <= 1 for f in found)
    assert hits >= 18, [f.reason for f in found]
    assert all(f.done for f in found)
    assert spent(tallies) < 0.05 * 100 * len(curve)  # against 100 rollouts per boundary
    exact = [f for f in found if f.step == drop]
    assert all(f.low is not None and f.low <= drop <= f.high for f in exact)
    assert all(f.before - f.after >= 0.2 for f in exact)  # a drop of delta, measured


def test_a_slide_smaller_than_delta_is_passed_for_the_drop_after_it() -> None:
    curve = [0.9] * 10 + [0.72] * 10 + [0.1] * 10  # 0.18 < 0.2 at step 9, the drop at 19
    steps = [first_drop(search(curve, seed)).step for seed in range(20)]
    assert sum(s is not None and abs(s - 19) <= 1 for s in steps) >= 14, steps


def test_an_earlier_drop_is_found_before_the_largest_fall() -> None:
    curve = [0.9] * 10 + [0.55] * 10 + [0.05] * 10  # 0.35 at step 9, then 0.5 at step 19
    steps = [first_drop(search(curve, seed)).step for seed in range(20)]
    # without the look before the largest fall, none would be (all at 19)
    assert sum(s is not None and abs(s - 9) <= 1 for s in steps) >= 10, steps


def test_a_trace_that_never_stood_high_has_no_drop() -> None:
    found = first_drop(search([0.08] * 20, seed=0))
    assert found.step is None and found.done
    assert found.reason.startswith("no drop of 0.2: the value is")


def test_a_budget_cut_short_answers_with_the_steps_it_narrowed_to() -> None:
    curve = [0.8] * 30 + [0.1] * 30
    tallies = search(curve, seed=1, budget=90)
    found = first_drop(tallies)
    assert not found.done and spent(tallies) <= 90
    assert found.low is not None and found.low <= 29 <= found.high
    assert found.high - found.low >= 1  # not narrowed to one step: an interval says so


def test_the_answer_depends_on_the_tallies_only() -> None:
    tallies = search([0.8] * 12 + [0.1] * 8, seed=3)
    assert first_drop(dict(tallies)) == first_drop(dict(reversed(list(tallies.items()))))


@pytest.mark.parametrize("kwargs", [{"delta": 0}, {"probe": 0}, {"probe": 30, "most": 24}])
def test_bad_settings_are_refused(kwargs) -> None:
    with pytest.raises(ValueError):
        FirstDropSchedule(**kwargs)


def test_analyze_trace_runs_the_search_on_a_model() -> None:
    """End to end on the coin backend: a failed trace whose value drops across step 6."""
    trace = open_trace()
    last = dataclasses.replace(trace.segments[-1], terminal=True)
    trace = dataclasses.replace(trace, segments=(*trace.segments[:-1], last), success=False)
    values = [0.85] * 7 + [0.1] * 4
    coin = CoinBackend(trace, values, str(trace.task.expected_answer))
    env = trace_environment(trace, coin)
    analysis = analyze_trace(
        trace, coin, AnalysisParams(budget=200), schedule=FirstDropSchedule(), environment=env
    )
    found = analysis.first_drop()
    assert found.step == 6 and found.done, found.reason
    assert len({r.boundary for r in analysis.rollouts}) < len(trace.segments)  # a few probed
