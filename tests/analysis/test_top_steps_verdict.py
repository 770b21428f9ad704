"""``StepAnalysis.top_steps``: which steps are surely among the top k, and is it calibrated."""

from __future__ import annotations

import itertools
import random
import statistics

from llenvs.analysis import (
    VERDICT_DRAWS,
    AnalysisParams,
    BoundaryValue,
    FixedSchedule,
    Interval,
    StepAnalysis,
    TopSteps,
    analyze_trace,
)
from llenvs.analysis import _step_analysis as step_analysis
from llenvs.analysis.statistics import (
    MOVED_CHANCE,
    NOTHING_MOVED,
    exact_value,
    step_importances,
    top_k_membership,
    value_draws,
)
from llenvs.analysis.statistics import _top_steps as top_steps
from tests.analysis.coin_backend import CoinBackend, jumpy_values


def analysis_of(*counts: tuple[int, int], end: bool | None = None) -> StepAnalysis:
    """A ``StepAnalysis`` with these (successes, trials) per boundary, and an exact end."""
    values = [BoundaryValue(b, n, s, s / n, Interval(0.0, 1.0)) for b, (s, n) in enumerate(counts)]
    if end is not None:
        values.append(exact_value(len(counts), end, None))
    return StepAnalysis("t", {}, tuple(values), tuple(step_importances(values)), None, ())


def test_a_clear_jump_is_sure_and_flat_steps_are_ruled_out():
    analysis = analysis_of((40, 80), (41, 80), (79, 80), (78, 80), (79, 80))
    verdict = analysis.top_steps(top_k=1)
    assert verdict.steps == (1,)
    assert verdict.sure == (1,)
    assert set(verdict.ruled_out) == {0, 2, 3}
    assert verdict.describe() == "1 (sure)"


def test_a_near_tie_for_third_place_is_in_doubt_and_either_answer_agrees():
    # two big jumps (steps 0 and 3) and between them a dip and a rise of the same size
    analysis = analysis_of((4, 40), (36, 40), (28, 40), (36, 40), (4, 40))
    verdict = analysis.top_steps(top_k=3)
    assert verdict.sure == (0, 3)
    assert set(verdict.doubtful) == {1, 2}
    assert verdict.agrees({0, 3, 1}) and verdict.agrees({0, 3, 2})
    assert not verdict.agrees({0, 1, 2})  # leaves out a sure step
    # a dip of 0.2 on 40 rollouts is not evidence that either step moved v: not named first
    assert max(analysis.moved[1], analysis.moved[2]) < MOVED_CHANCE
    assert verdict.steps == (0, 3)
    assert verdict.describe() == "0 (sure), 3 (sure); also in doubt: 1, 2"


def test_flat_steps_of_one_stretch_are_ruled_out_not_in_doubt():
    # one jump; the other steps differ by sampling noise only: none of them is a third place
    analysis = analysis_of((5, 40), (35, 40), (36, 40), (35, 40), (34, 40), (35, 40))
    verdict = analysis.top_steps(top_k=3)
    assert verdict.sure == (0,)
    assert set(verdict.ruled_out) == {1, 2, 3, 4}
    assert analysis.ranking()[0] == 0 and analysis.moved[0] > 0.99
    assert max(analysis.moved[s] for s in (1, 2, 3, 4)) < 0.2


def test_a_flat_curve_names_no_step_important():
    analysis = analysis_of((20, 40), (21, 40), (20, 40), (19, 40), (20, 40))
    verdict = analysis.top_steps(top_k=3)
    assert verdict.sure == () and verdict.steps == ()
    assert verdict.describe() == NOTHING_MOVED
    assert verdict.headline() == "no step moved the value detectably at this budget"


def test_a_three_step_trace_is_not_sure_of_every_step_because_k_covers_them_all():
    # products line 5 after a budget of 8: 3, 3 and 2 rollouts, all failed, the end known
    analysis = analysis_of((0, 3), (0, 3), (0, 2), end=False)
    verdict = analysis.top_steps(top_k=3)
    assert verdict.sure == ()
    assert verdict.describe() == NOTHING_MOVED
    assert all(chance < MOVED_CHANCE for chance in analysis.moved.values())


def test_a_step_at_a_boundary_with_one_rollout_is_not_sure():
    # one rollout at boundary 1, a success between two boundaries at one half
    analysis = analysis_of((10, 20), (1, 1), (10, 20))
    verdict = analysis.top_steps(top_k=1)
    assert verdict.sure == () and verdict.describe() == NOTHING_MOVED
    alone = analysis_of((0, 1), (1, 1), (1, 1)).top_steps(top_k=3)  # the CLI's "0 (sure)"
    assert alone.sure == () and alone.describe() == NOTHING_MOVED


def test_a_clear_jump_in_a_three_step_trace_is_still_sure():
    analysis = analysis_of((1, 30), (1, 30), (29, 30), (29, 30))
    verdict = analysis.top_steps(top_k=3)
    assert verdict.sure == (1,) and verdict.steps == (1,)
    assert verdict.headline() == "most important steps: 1 (sure)"


def test_an_ended_traces_known_last_value_is_exact():
    # the trace failed: its last step (v 0.95 -> 0, known) is surely the most important
    analysis = analysis_of((10, 20), (19, 20), end=False)
    verdict = analysis.top_steps(top_k=1)
    assert verdict.steps == (1,) and verdict.sure == (1,)


def test_nothing_sure_without_rollouts_and_top_k_zero_asks_nothing():
    empty = StepAnalysis("t", {}, (), (), None, ())
    assert empty.top_steps() == TopSteps((), {})
    assert analysis_of((1, 2), (1, 2)).top_steps(top_k=0).chances == {}


def test_sure_steps_are_truly_in_the_top_3_at_the_stated_confidence(trace, environment):
    """Calibration on the coin backend (known values): sure steps are jumps, ruled-out ones not.

    40 value curves with 1-3 jumps (``|Δ| >= 0.1``; the other steps drift by a couple of
    points), a fixed pass of 32 rollouts at each of the 11 boundaries (the reference of
    ``bench/analysis.py``). The jumps are the steps that mattered (at most 3, so all in the
    true top 3). A sure step is a jump, and a ruled-out one is not, at least 90% of the time
    (the verdict claims 95%); the verdict must be sure of and rule out enough steps for the
    shares to mean something.
    """
    right = str(trace.task.expected_answer)
    sure = ruled_out = sure_right = ruled_out_right = 0
    for number in range(40):
        values = jumpy_values(random.Random(number), 11)
        truth = {s for s, (a, b) in enumerate(itertools.pairwise(values)) if abs(b - a) >= 0.1}
        coin = CoinBackend(trace, values, right)
        params = AnalysisParams(budget=32 * 11, seed=number)
        analysis = analyze_trace(
            trace, coin, params, schedule=FixedSchedule(per_round=32), environment=environment
        )
        verdict = analysis.top_steps(top_k=3)
        sure += len(verdict.sure)
        sure_right += len(set(verdict.sure) & truth)
        ruled_out += len(verdict.ruled_out)
        ruled_out_right += len(set(verdict.ruled_out) - truth)
    print(f"sure {sure_right}/{sure} right, ruled out {ruled_out_right}/{ruled_out} right")
    assert sure >= 20 and ruled_out >= 100  # the run here: sure 36/36, ruled out 151/153
    assert sure_right >= 0.9 * sure
    assert ruled_out_right >= 0.9 * ruled_out


def test_sizes_and_top_steps_share_one_set_of_draws_and_read_as_before(monkeypatch):
    """The verdict's 2,000 joint draws are made once per analysis, and read as they were.

    Before, ``sizes`` and ``top_steps`` each drew their own (the same, seeded by the tallies):
    the readings are those of the draws made apart, equal to the last bit.
    """
    analysis = analysis_of((10, 40), (12, 40), (33, 40), (31, 40), (5, 40), end=False)
    tallies = analysis._tallies()
    apart = value_draws(tallies, VERDICT_DRAWS)
    expected_sizes = {
        s.step: statistics.fmean(abs(d[s.step + 1] - d[s.step]) for d in apart)
        for s in analysis.importances
    }
    expected_chances = {k: top_k_membership(tallies, k, VERDICT_DRAWS) for k in (1, 3)}
    made = []

    def counted(*args, **kwargs):
        made.append(args)
        return value_draws(*args, **kwargs)

    for module in (step_analysis, top_steps):  # wherever the analysis may draw
        monkeypatch.setattr(module, "value_draws", counted)
    assert analysis.sizes == expected_sizes
    for top_k, chances in expected_chances.items():
        assert analysis.top_steps(top_k=top_k).chances == chances
    analysis.ranking()
    assert len(made) == 1
