"""The readings' intervals over 200 seeded runs of the coin backend, whose values are known."""

from __future__ import annotations

from llenvs.analysis import AdaptiveSchedule, AnalysisParams, FixedSchedule, analyze_trace
from tests.analysis.conftest import MOST_IMPORTANT, TRUE_VALUES

RUNS = 200


def test_95_percent_intervals_cover_the_true_values_at_least_90_percent_of_the_time(
    trace, coin, environment
):
    covered = total = covered_steps = total_steps = 0
    for seed in range(RUNS):
        params = AnalysisParams(budget=88, width=0.15, seed=seed)
        analysis = analyze_trace(trace, coin, params, environment=environment)
        for value in analysis.values:
            total += 1
            covered += TRUE_VALUES[value.boundary] in value.interval
        for step in analysis.importances:
            truth = TRUE_VALUES[step.step + 1] - TRUE_VALUES[step.step]
            total_steps += 1
            covered_steps += truth in step.interval
    rate, step_rate = covered / total, covered_steps / total_steps
    print(f"coverage over {RUNS} runs: step values {rate:.3f}, importances {step_rate:.3f}")
    assert rate >= 0.90
    assert step_rate >= 0.90


def test_the_adaptive_schedule_ranks_the_most_important_step_first_more_often(
    trace, coin, environment
):
    first = {"adaptive": 0, "fixed": 0}
    spent = {"adaptive": 0, "fixed": 0}
    schedules = {"adaptive": AdaptiveSchedule(), "fixed": FixedSchedule()}
    for seed in range(RUNS):
        for name, schedule in schedules.items():
            params = AnalysisParams(budget=88, width=0.01, seed=seed)
            analysis = analyze_trace(
                trace, coin, params, environment=environment, schedule=schedule
            )
            first[name] += analysis.ranking()[0] == MOST_IMPORTANT
            spent[name] += len(analysis.rollouts)
    print(f"top step right over {RUNS} runs: {first} (rollouts {spent})")
    assert spent["adaptive"] == spent["fixed"] == RUNS * 88  # the same total budget
    assert first["adaptive"] > first["fixed"]


def test_k_rollouts_from_one_prefix_have_their_own_seeds(trace, coin, environment):
    analysis = analyze_trace(
        trace, coin, AnalysisParams(budget=11 * 4, seed=3), environment=environment
    )
    seeds = [r.seed for r in analysis.rollouts]
    assert len(set(seeds)) == len(seeds)
    again = analyze_trace(
        trace, coin, AnalysisParams(budget=11 * 4, seed=3), environment=environment
    )
    assert again.rollouts == analysis.rollouts
