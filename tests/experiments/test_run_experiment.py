"""An experiment on scripted parents: its outcomes, statistics and map equal hand-computed
values, and a stopped or killed run resumes with no branch made twice and none lost."""

from __future__ import annotations

import json

import pytest

from llenvs.analysis import compare_paired
from llenvs.analysis.statistics import wilson_interval
from llenvs.core import Feedback, Force, RunControl, StopToken
from llenvs.evaluation.episodes import StepTaken
from llenvs.experiments import (
    EXPERIMENT_METADATA,
    BranchRecorded,
    ExperimentError,
    How,
    ParentFilter,
    Recipe,
    RelativePositions,
    read_experiment,
    run_experiment,
    summarize,
)
from llenvs.inference import get_backend
from llenvs.traces import read_branches
from tests.experiments.scripted_parents import parents_file

RECIPE = Recipe("check", ParentFilter(), RelativePositions((0.0, 0.5)), Feedback("Check."))
"""Feedback after segment 0 (position 0) and segment 1 (position 1/3) of 4 parents: 8 branches."""

OUTPUTS = [
    "So 100. <answer>100</answer>",  # parent 0 (fails, 8), after segment 0: right -> flip
    "<answer>8</answer>",  # parent 0, after segment 1: the same answer
    "<answer>7</answer>",  # parent 1 (fails, 8): another wrong answer
    "<answer>140</answer>",  # parent 1: right -> flip
    "<answer>286</answer>",  # parent 2 (succeeds): the same
    "<answer>8</answer>",  # parent 2: wrong -> flip the other way
    "<answer>187</answer>",  # parent 3 (succeeds): the same
    "<answer>187</answer>",
]
BEFORE = [False, False, False, False, True, True, True, True]
AFTER = [True, False, False, True, True, False, True, True]
CHANGED = [True, False, True, True, False, True, False, False]


def _key_order(outcomes):
    return sorted(outcomes, key=lambda o: (o.task_index, o.segment, o.sample))


def test_outcomes_statistics_and_map_equal_hand_computed_values(tmp_path):
    parents = parents_file(tmp_path)
    events = []
    run = run_experiment(
        RECIPE,
        parents,
        tmp_path / "check",
        get_backend("scripted", outputs=OUTPUTS),
        in_flight=1,
        control=RunControl(events.append),
    )
    outcomes = _key_order(run.outcomes)
    assert run.complete and run.ran == 8
    assert [o.parent_success for o in outcomes] == BEFORE
    assert [o.success for o in outcomes] == AFTER
    assert [o.answer_changed for o in outcomes] == CHANGED
    assert [o.segment for o in outcomes] == [0, 1] * 4
    assert [o.answer for o in outcomes][:3] == ["100", "8", "7"]

    summary = summarize(run.outcomes)
    assert (summary.parents, summary.branches) == (4, 8)
    assert (summary.fail_to_success, summary.success_to_fail) == (2, 1)
    assert summary.answer_changed == 4
    assert summary.success_before == 0.5 and summary.success_after == 0.625
    assert summary.paired.difference == pytest.approx(1 / 8)
    # McNemar, exact: 3 discordant pairs, 1 against 2: 2 * (C(3,0) + C(3,1)) / 2^3 = 1
    assert summary.paired.p_value == 1.0
    assert summary.paired.interval == compare_paired(BEFORE, AFTER).interval
    assert summary.answer_change_interval == wilson_interval(4, 8)
    # the map: position 0 -> bin [0, .25), position 1/3 -> bin [.25, .5)
    bins = [
        (b.branches, b.flips, b.fail_to_success, b.success_to_fail, b.answer_changes)
        for b in summary.map
    ]
    assert bins == [(4, 1, 1, 0, 2), (4, 2, 1, 1, 2), (0, 0, 0, 0, 0), (0, 0, 0, 0, 0)]
    assert summary.map[0].flip_interval == wilson_interval(1, 4)
    assert summary.map[1].same_answer == 0.5
    assert summary.by_prm_score == ()  # the parents have no PRM scores
    points = {(p.task_index, p.segment): (p.before, p.after) for p in summary.points}
    assert points[(0, 0)] == (False, (True,)) and points[(2, 1)] == (True, (False,))
    json.dumps(summary.to_record())  # all JSON

    # the branch traces sit in the parents' branches sidecar, naming the experiment
    branches = list(read_branches(parents))
    assert len(branches) == 8
    assert {b.trace_id for b in branches} == {o.branch_id for o in run.outcomes}
    assert all(b.metadata[EXPERIMENT_METADATA]["id"] == run.header.experiment_id for b in branches)
    # the recipe is line 1, verbatim; events came as the run went
    first = json.loads(run.path.read_text(encoding="utf-8").splitlines()[0])
    assert first["recipe"] == RECIPE.to_record()
    recorded = [e for e in events if isinstance(e, BranchRecorded)]
    assert [e.done for e in recorded] == list(range(1, 9))
    assert [e.flips for e in recorded][-1] == 3
    assert any(isinstance(e, StepTaken) for e in events)


def test_a_stopped_run_resumes_with_no_branch_made_twice_and_none_lost(tmp_path):
    parents = parents_file(tmp_path)
    stop = StopToken()

    def stop_after_three(event):
        if isinstance(event, BranchRecorded) and event.done == 3:
            stop.stop()

    first = run_experiment(
        RECIPE,
        parents,
        tmp_path / "check",
        get_backend("scripted", outputs=OUTPUTS),
        in_flight=1,
        control=RunControl(stop_after_three, stop),
    )
    assert first.ran == 3 and not first.complete
    rest = get_backend("scripted", outputs=OUTPUTS[3:])
    second = run_experiment(RECIPE, parents, tmp_path / "check", rest, in_flight=1)
    assert second.ran == 5 and second.complete
    outcomes = _key_order(second.outcomes)
    assert [o.success for o in outcomes] == AFTER
    assert len({o.key for o in outcomes}) == 8
    branches = list(read_branches(parents))
    assert len(branches) == 8  # none made twice
    assert {b.trace_id for b in branches} == {o.branch_id for o in outcomes}  # none lost
    third = run_experiment(RECIPE, parents, tmp_path / "check", get_backend("scripted"))
    assert third.ran == 0 and len(third.outcomes) == 8


def test_a_branch_kept_in_the_sidecar_but_not_recorded_is_recorded_not_made_again(tmp_path):
    """A kill between writing a branch trace and its record: the next run records it."""
    parents = parents_file(tmp_path)
    run = run_experiment(
        RECIPE,
        parents,
        tmp_path / "check",
        get_backend("scripted", outputs=OUTPUTS),
        in_flight=1,
    )
    lines = run.path.read_text(encoding="utf-8").splitlines(keepends=True)
    run.path.write_text("".join(lines[:-2]) + lines[-2][:20], encoding="utf-8")  # + torn line
    with pytest.warns(UserWarning, match=r"check\.experiment\.jsonl:8: skipped"):
        assert len(read_experiment(run.path)[1]) == 6
    with pytest.warns(UserWarning):
        again = run_experiment(RECIPE, parents, tmp_path / "check", get_backend("scripted"))
    assert again.ran == 0
    assert len(list(read_branches(parents))) == 8
    assert [o.success for o in _key_order(again.outcomes)] == AFTER


def test_another_recipe_on_the_same_file_is_refused(tmp_path):
    parents = parents_file(tmp_path)
    run_experiment(
        RECIPE, parents, tmp_path / "check", get_backend("scripted", outputs=OUTPUTS), in_flight=1
    )
    other = Recipe("other", ParentFilter(), RelativePositions((0.5,)), Feedback("Check."))
    with pytest.raises(ExperimentError, match="holds another experiment"):
        run_experiment(other, parents, tmp_path / "check", get_backend("scripted"))


def test_many_in_flight_make_the_same_branches(tmp_path):
    """Continuous scheduling with 8 in flight: every branch made once, each verdict right."""
    parents = parents_file(tmp_path)
    same = Recipe("same", ParentFilter(), RelativePositions((0.0, 0.5)), Feedback("Again."))
    backend = get_backend("scripted", outputs=["<answer>8</answer>"] * 8)
    run = run_experiment(same, parents, tmp_path / "same", backend, in_flight=8)
    outcomes = _key_order(run.outcomes)
    assert [o.success for o in outcomes] == [False] * 8
    assert [o.answer_changed for o in outcomes] == [False] * 4 + [True] * 4


def test_on_policy_scores_with_a_model_that_cannot_score_are_refused_before_anything(tmp_path):
    parents = parents_file(tmp_path)
    recipe = Recipe(
        "force", ParentFilter(), RelativePositions((0.0,)), Force("So 8."), How(on_policy=4)
    )
    backend = get_backend("scripted", outputs=["<answer>8</answer>"])
    with pytest.raises(ExperimentError, match="scripted cannot score a text"):
        run_experiment(recipe, parents, tmp_path / "force", backend)
    assert list(read_branches(parents)) == []
    assert not (tmp_path / "force.experiment.jsonl").exists()
