"""On the embedded SmolLM2: 2 parents x 2 positions x 1 feedback, made, recorded and resumed."""

from __future__ import annotations

import shutil

import pytest
from scipy.stats import percentileofscore

from llenvs.core import Feedback, Force
from llenvs.evaluation.branching import OnPolicy, on_policy
from llenvs.experiments import (
    How,
    ParentFilter,
    Recipe,
    RelativePositions,
    SegmentAt,
    run_experiment,
    summarize,
)
from llenvs.traces import SegmentFlag, read_branches, read_traces
from tests.analysis.conftest import SAMPLE


def test_two_parents_two_positions_one_feedback_on_the_embedded_model(tmp_path, embedded_backend):
    parents_path = tmp_path / "runs.jsonl"
    shutil.copy(SAMPLE, parents_path)
    parents = {t.trace_id: t for t in read_traces(parents_path)}
    recipe = Recipe(
        "hint",
        ParentFilter(),
        RelativePositions((0.0, 0.5)),
        Feedback("Check your count: the answer is {expected}."),
        How(max_tokens=32),
    )
    run = run_experiment(recipe, parents_path, tmp_path / "hint", embedded_backend, in_flight=4)
    assert run.complete and run.ran == 4 and len(run.outcomes) == 4
    assert {o.parent_id for o in run.outcomes} == set(parents)
    branches = {b.trace_id: b for b in read_branches(parents_path)}
    assert set(branches) == {o.branch_id for o in run.outcomes}
    for outcome in run.outcomes:
        branch = branches[outcome.branch_id]
        parent = parents[outcome.parent_id]
        kept = outcome.segment + 1
        # the kept prefix is the parent's own, the feedback follows it, the model answered
        assert [s.text for s in branch.segments[:kept]] == [s.text for s in parent.segments[:kept]]
        assert SegmentFlag.FEEDBACK_AFTER in branch.segments[kept - 1].flags
        hint = f"Check your count: the answer is {parent.task.expected_answer}."
        assert any(m.content == hint for m in branch.messages)
        assert len(branch.segments) > kept
        assert outcome.parent_success == parent.success
        assert branch.run.spec.sampling.max_tokens == 32
    again = run_experiment(recipe, parents_path, tmp_path / "hint", embedded_backend)
    assert again.ran == 0 and len(list(read_branches(parents_path))) == 4


def test_a_force_scored_on_policy_records_its_percentile_per_branch(tmp_path, embedded_backend):
    parents_path = tmp_path / "runs.jsonl"
    shutil.copy(SAMPLE, parents_path)
    parents = {t.trace_id: t for t in read_traces(parents_path)}
    recipe = Recipe(
        "force",
        ParentFilter(),
        SegmentAt(0),
        Force("Each cow has 4 legs."),
        How(samples=2, max_tokens=16, on_policy=6),
    )
    run = run_experiment(recipe, parents_path, tmp_path / "force", embedded_backend)
    assert run.ran == 4 and len(run.outcomes) == 4
    branches = {b.trace_id: b for b in read_branches(parents_path)}
    for outcome in run.outcomes:
        scored = branches[outcome.branch_id].metadata["on_policy"]
        assert scored["samples"] == 6 and len(scored["sample_mean_logprobs"]) == 6
        assert outcome.on_policy == scored["percentile"]
        # its place among the 6 continuations' scores, ranked by scipy (ties half, NaN out)
        found = OnPolicy.from_record(scored)  # an unknown mean (null) reads back as NaN
        rank = percentileofscore(
            found.sample_means, found.mean_logprob, kind="mean", nan_policy="omit"
        )
        assert found.percentile == pytest.approx(rank)
        assert outcome.on_policy_logprob == scored["mean_logprob"] < 0
        # the score is the library's own, seeded as the recipe says
        expected = on_policy(
            parents[outcome.parent_id], 0, "Each cow has 4 legs.", embedded_backend, samples=6
        )
        assert scored["mean_logprob"] == pytest.approx(expected.mean_logprob, abs=1e-4)
    # both samples of a point share its one score
    by_parent = {}
    for outcome in run.outcomes:
        by_parent.setdefault(outcome.parent_id, set()).add(outcome.on_policy)
    assert all(len(scores) == 1 for scores in by_parent.values())
    summary = summarize(run.outcomes)
    assert sum(b.branches for b in summary.by_on_policy) == 4
