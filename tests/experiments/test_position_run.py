"""An experiment's positions as runs: which branches each run holds, how they pair, the counts.

A hand-built experiment file over the scripted parents (leg_counting tasks 0..3, three segments
each): a misleading hint at 0.4 and 0.7, two samples per point, with known verdicts.
"""

from __future__ import annotations

import dataclasses

import pytest

from llenvs.analysis import RunTask, pair_runs
from llenvs.core import Feedback
from llenvs.experiments import (
    BranchOutcome,
    EveryBoundary,
    ExperimentError,
    How,
    ParentFilter,
    PositionRun,
    Recipe,
    RelativePositions,
    append_outcome,
    open_experiment_runs,
    parent_tasks,
    position_runs,
    start_experiment,
    summarize,
    trace_lines,
)
from llenvs.traces import read_traces, write_traces
from tests.experiments.scripted_parents import SUCCEEDS, parents_file

RECIPE = Recipe(
    "hint",
    ParentFilter(),
    RelativePositions((0.4, 0.7)),
    Feedback("Not {expected}."),
    How(samples=2),
)

AFTER = {
    # (task, segment, sample): the branch's verdict; parents 0, 1 fail and 2, 3 succeed
    (0, 1, 0): True,
    (0, 1, 1): False,
    (0, 2, 0): True,
    (0, 2, 1): True,
    (1, 1, 0): False,
    (1, 1, 1): False,
    (1, 2, 0): False,
    (1, 2, 1): True,
    (2, 1, 0): False,
    (2, 1, 1): True,
    (2, 2, 0): True,
    (2, 2, 1): False,
    (3, 1, 0): True,
    (3, 1, 1): True,
    (3, 2, 0): False,
    (3, 2, 1): False,
}


def _outcome(parent, segment, sample, success):
    before = SUCCEEDS[parent.task.task_index]
    return BranchOutcome(
        parent.trace_id,
        parent.task.task_index,
        segment,
        segment + 1,
        len(parent.segments),
        sample,
        sample,
        f"branch-{parent.task.task_index}-{segment}-{sample}",
        before,
        "8",
        success,
        "8" if success == before else "9",
    )


@pytest.fixture
def experiment(tmp_path):
    """The experiment file, its parents beside it (no branches file: verdicts only)."""
    parents = parents_file(tmp_path)
    traces = {t.task.task_index: t for t in read_traces(parents)}
    assert {len(t.segments) for t in traces.values()} == {3}  # 0.4 → segment 1, 0.7 → 2
    path = tmp_path / "hint.experiment.jsonl"
    start_experiment(path, RECIPE, parents)
    for (task, segment, sample), success in AFTER.items():
        append_outcome(path, _outcome(traces[task], segment, sample, success))
    return path


def test_one_run_per_position_and_sample_with_the_branches_made_there(experiment):
    opened = open_experiment_runs(experiment)
    names = [run.name for run in opened.runs]
    assert names == [
        "hint @ position 0.4, sample 0",
        "hint @ position 0.4, sample 1",
        "hint @ position 0.7, sample 0",
        "hint @ position 0.7, sample 1",
    ]
    for run, (segment, sample) in zip(opened.runs, [(1, 0), (1, 1), (2, 0), (2, 1)], strict=True):
        assert {(b.segment, b.sample) for b in run.branches} == {(segment, sample)}
        assert sorted(b.task_index for b in run.branches) == [0, 1, 2, 3]
    assert opened.parents_file == (experiment.parent / "runs.jsonl").resolve()
    assert opened.skipped == ()


def test_a_run_pairs_each_branch_with_its_parents_task_and_counts_as_the_summary(experiment):
    opened = open_experiment_runs(experiment)
    parents = parent_tasks(opened.parents_file)
    first = [
        RunTask(p.identity, p.task_index, SUCCEEDS[p.task_index])
        for p in sorted(parents.values(), key=lambda p: p.line)
    ]
    for run in opened.runs:
        rows = run.rows(parents, trace_lines(opened.branches_file))
        assert (rows.no_parent, rows.same_task) == (0, 0)
        assert all(row.line is None for row in rows.rows)  # no branches file: not linked
        pairing = pair_runs(first, rows.tasks())
        assert pairing.paired == 4 and pairing.only_first == pairing.only_second == 0
        summary = summarize(run.branches)
        before = sum(one.success is True for one, _ in pairing.pairs)
        after = sum(two.success is True for _, two in pairing.pairs)
        up = sum(one.success is False and two.success is True for one, two in pairing.pairs)
        down = sum(one.success is True and two.success is False for one, two in pairing.pairs)
        assert (before / 4, after / 4) == (summary.success_before, summary.success_after)
        assert (up, down) == (summary.fail_to_success, summary.success_to_fail)
        segment = run.branches[0].segment
        wanted = {
            (task, seg): after
            for (task, seg, sample), after in AFTER.items()
            if sample == run.sample and seg == segment
        }
        assert {(r.task_index, r.segment): r.success for r in rows.rows} == wanted


def test_hand_computed_counts_of_one_run(experiment):
    run = open_experiment_runs(experiment).runs[0]  # position 0.4, sample 0
    summary = summarize(run.branches)
    # parents F F T T; after T F F T: one fail → success (task 0), one success → fail (task 2)
    assert (summary.fail_to_success, summary.success_to_fail) == (1, 1)
    assert (summary.success_before, summary.success_after) == (0.5, 0.5)


def test_one_sample_per_point_names_no_sample():
    b = BranchOutcome("p", 0, 3, 3, 8, 0, 0, "b", True, "1", True, "1")
    [run] = position_runs("x", RelativePositions((0.4,)), 1, [b])
    assert run.name == "x @ position 0.4" and run.sample is None


def test_a_branch_two_fractions_fall_on_belongs_to_both():
    b = BranchOutcome("p", 0, 0, 0, 1, 0, 0, "b", True, "1", True, "1")  # one segment
    runs = position_runs("x", RelativePositions((0.25, 0.5)), 1, [b])
    assert [r.branches for r in runs] == [(b,), (b,)]


def test_other_rules_give_one_run_per_intervened_segment():
    b = [BranchOutcome("p", 0, s, s, 4, 0, 0, f"b{s}", True, "1", True, "1") for s in (2, 0)]
    runs = position_runs("x", EveryBoundary(), 1, b)
    assert [run.name for run in runs] == ["x @ segment 0", "x @ segment 2"]


def test_a_parent_missing_or_sharing_a_task_is_left_out_and_said(experiment, tmp_path):
    opened = open_experiment_runs(experiment)
    parents = parent_tasks(opened.parents_file)
    run = opened.runs[0]
    by_task = {b.task_index: b for b in run.branches}
    twin = dataclasses.replace(by_task[1], parent_id="twin", branch_id="twin-branch")
    lost = dataclasses.replace(by_task[2], parent_id="gone", branch_id="lost-branch")
    parents["twin"] = dataclasses.replace(parents[by_task[1].parent_id], line=99)
    widened = PositionRun(run.experiment, run.position, run.sample, (*run.branches, twin, lost))
    rows = widened.rows(parents, {})
    assert (rows.no_parent, rows.same_task, len(rows.rows)) == (1, 1, 4)
    assert "twin-branch" not in {r.branch_id for r in rows.rows}  # the earlier parent's stays
    assert rows.describe() == (
        "1 branch left out: its parent is not in the parents’ file; "
        "1 branch left out: its parent’s task is an earlier parent’s too"
    )


def test_a_missing_parents_file_is_an_error_naming_both_files(experiment):
    (experiment.parent / "runs.jsonl").unlink()
    with pytest.raises(ExperimentError, match=r"hint\.experiment\.jsonl: its parents' file .*"):
        open_experiment_runs(experiment)


def test_a_torn_line_is_skipped_and_named_the_rest_still_opens(experiment):
    with experiment.open("a") as file:
        file.write('{"kind": "branch", "parent_id": "x", "task')
    opened = open_experiment_runs(experiment)
    assert len(opened.runs) == 4
    [skipped] = opened.skipped
    assert f"{experiment}:18: skipped" in skipped


def test_branch_lines_come_from_the_branches_file(experiment, tmp_path):
    opened = open_experiment_runs(experiment)
    run = opened.runs[0]
    parents = list(read_traces(opened.parents_file))
    branch_traces = [
        dataclasses.replace(parents[b.task_index], trace_id=b.branch_id) for b in run.branches
    ]
    write_traces(opened.branches_file, branch_traces)
    rows = run.rows(parent_tasks(opened.parents_file), trace_lines(opened.branches_file))
    assert sorted(r.line for r in rows.rows if r.line is not None) == [1, 2, 3, 4]
