"""On the embedded SmolLM2: 2 parents x 2 positions x 1 feedback, made, recorded and resumed."""

from __future__ import annotations

import shutil

from llenvs.core.intervention import Feedback
from llenvs.experiments import How, ParentFilter, Recipe, RelativePositions, run_experiment
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
