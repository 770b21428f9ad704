"""Which branches a recipe plans, and the clear refusal of a recipe that selects nothing."""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from llenvs.core import COMPLETE, Feedback, Force, Resample, SamplingParams
from llenvs.experiments import (
    EveryBoundary,
    ExperimentError,
    How,
    MatchingRegex,
    ParentFilter,
    ParentOutcome,
    PRMBelow,
    Recipe,
    RelativePositions,
    SegmentAt,
    SkipReason,
    TopImportance,
    plan_experiment,
    plan_file,
    run_experiment,
)
from llenvs.inference import get_backend
from tests.conftest import REPO
from tests.experiments.scripted_parents import EXPECTED, parents


def _scored(trace, scores):
    segments = tuple(
        dataclasses.replace(s, prm_scores={"prm": score})
        for s, score in zip(trace.segments, scores, strict=True)
    )
    return dataclasses.replace(trace, segments=segments)


def test_relative_positions_give_floor_of_f_times_n_and_where_each_kind_branches():
    traces = parents()
    planned = plan_experiment(
        Recipe("r", ParentFilter(), RelativePositions((0.0, 0.5, 0.9)), Feedback("Hm.")), traces
    )
    assert [(p.request.parent.task.task_index, p.segment) for p in planned[:3]] == [
        (0, 0),
        (0, 1),
        (0, 2),
    ]
    assert len(planned) == 12
    # feedback comes after the segment; force replaces it; complete generates from it
    assert [p.request.at for p in planned[:3]] == [1, 2, 3]
    forced = plan_experiment(Recipe("f", ParentFilter(), SegmentAt(1), Force("X. ")), traces)
    completed = plan_experiment(Recipe("c", ParentFilter(), SegmentAt(1), COMPLETE), traces)
    assert {p.request.at for p in forced} == {1} == {p.request.at for p in completed}


def test_templates_are_filled_per_parent():
    traces = parents()
    recipe = Recipe("t", ParentFilter(), SegmentAt(0), Feedback("{segment}|{answer}|{expected}"))
    texts = [p.request.intervention.text for p in plan_experiment(recipe, traces)]
    answers = ["8", "8", EXPECTED[2], EXPECTED[3]]
    assert texts == [f"Count. |{a}|{e}" for a, e in zip(answers, EXPECTED, strict=True)]


def test_parent_filter_and_samples_each_with_its_own_seed():
    traces = parents()
    recipe = Recipe(
        "s",
        ParentFilter(outcome=ParentOutcome.SUCCEEDED, limit=1),
        SegmentAt(0),
        Resample(2, SamplingParams(temperature=1.0)),
        How(samples=2, seed=3, max_tokens=16),
    )
    planned = plan_experiment(recipe, traces)
    assert {p.request.parent.task.task_index for p in planned} == {2}
    assert [p.sample for p in planned] == [0, 1, 2, 3]
    seeds = [p.job.seed for p in planned]
    assert len(set(seeds)) == 4 and seeds[0] == 3
    for p in planned:
        assert p.request.intervention.n == 1
        assert p.request.intervention.params.temperature == 1.0
        assert p.request.intervention.params.max_tokens == 16


def test_prm_threshold_and_importance_pick_their_segments():
    traces = [_scored(t, (0.9, 0.3, 0.1)) for t in parents()]
    planned = plan_experiment(Recipe("p", ParentFilter(), PRMBelow(0.5), COMPLETE), traces)
    assert {p.segment for p in planned} == {1}
    assert {p.prm_score for p in planned} == {0.3}
    importances = {traces[0].trace_id: {0: 0.1, 1: -0.8, 2: 0.5}}
    top = plan_experiment(
        Recipe("i", ParentFilter(), TopImportance(2), COMPLETE), traces, importances=importances
    )
    assert [(p.request.parent.trace_id, p.segment) for p in top] == [
        (traces[0].trace_id, 1),
        (traces[0].trace_id, 2),
    ]


@pytest.mark.parametrize(
    ("recipe", "why"),
    [
        (
            Recipe("rx", ParentFilter(), MatchingRegex("zebra"), COMPLETE),
            "the regex 'zebra' never matched a segment of any parent",
        ),
        (
            Recipe("prm", ParentFilter(), PRMBelow(0.05), COMPLETE),
            "no PRM score is under 0.05 in any parent",
        ),
        (
            Recipe("top", ParentFilter(), TopImportance(1), COMPLETE),
            "no parent has stored step importances",
        ),
        (Recipe("k", ParentFilter(), SegmentAt(9), COMPLETE), "no parent has a segment 9"),
        (
            Recipe("mistake", ParentFilter(), MatchingRegex("Count"), Force("{perturbed}")),
            "the intervention's template could not be filled",
        ),
        (
            Recipe("env", ParentFilter(environment="nope"), EveryBoundary(), COMPLETE),
            "selects no parent",
        ),
    ],
    ids=lambda v: v.name if isinstance(v, Recipe) else "",
)
def test_a_recipe_that_selects_nothing_says_why(recipe, why):
    traces = [_scored(t, (0.9, 0.3, 0.1)) for t in parents()]
    with pytest.raises(ExperimentError, match=why):
        plan_experiment(recipe, traces)


NUMBER_FORMAT = REPO / "sample_traces" / "number_format-smollm2.jsonl"
"""Embedded-model traces: tasks 1, 2, 10 and 13 end with an empty step (the model said nothing
more), the other ten do not; every trace has 3 or more segments."""


def test_feedback_after_an_empty_segment_is_skipped_at_planning_and_counted(tmp_path):
    path = tmp_path / "nf.jsonl"
    shutil.copy(NUMBER_FORMAT, path)
    hint = Recipe("hint", ParentFilter(), EveryBoundary(), Feedback("Check the format."))
    plan = plan_file(hint, path)
    assert plan.skipped == {SkipReason.EMPTY_SEGMENT: 4}
    assert plan.note().startswith("4 positions skipped: empty segment (in the kept prefix")
    assert all(p.request.parent.segments[p.segment].text for p in plan)
    # forcing or completing at the empty step keeps only the steps before it: nothing skipped
    assert not plan_file(Recipe("f", ParentFilter(), SegmentAt(2), Force("X. ")), path).skipped
    # what is planned runs: the run no longer fails on the empty step
    run = run_experiment(
        hint, path, tmp_path / "hint", get_backend("scripted", outputs=["<answer>1</answer>"] * 99)
    )
    assert run.complete and len(run.outcomes) == len(plan)
    assert not any(o.error for o in run.outcomes)


def test_a_recipe_whose_every_position_is_skipped_says_how_many_and_why(tmp_path):
    path = tmp_path / "nf.jsonl"
    shutil.copy(NUMBER_FORMAT, path)
    recipe = Recipe("hint", ParentFilter(tasks=(1, 2, 10, 13)), SegmentAt(2), Feedback("Hm."))
    with pytest.raises(
        ExperimentError,
        match=r"the recipe 'hint' selects no segment: 4 selected position\(s\), none can be "
        r"branched: 4 positions skipped: empty segment",
    ):
        plan_file(recipe, path)


def test_an_unfilled_template_is_counted_beside_the_branches_it_did_not_plan():
    traces = parents()
    plan = plan_experiment(
        Recipe("m", ParentFilter(), EveryBoundary(), Force("{perturbed}")), traces
    )
    # "Count. " and "Think. " have no number to perturb; "So X. <answer>X</answer>" has
    assert plan.skipped == {SkipReason.UNFILLED_TEMPLATE: 8}
    assert len(plan) == 4 and {p.segment for p in plan} == {2}
