"""An experiment's branches are scored by their parents' recorded PRM, exactly as ``intervene``
scores the same branch; a PRM that cannot be made again is a recorded reason, not a silent None."""

from __future__ import annotations

from dataclasses import replace

import pytest

from llenvs.core import COMPLETE, Feedback, Force
from llenvs.core.run_spec import PRMSpec
from llenvs.evaluation.branching import PRM_UNSCORED, intervene
from llenvs.experiments import (
    EXPERIMENT_METADATA,
    ParentFilter,
    Recipe,
    SegmentAt,
    plan_file,
    run_experiment,
)
from llenvs.inference import get_backend
from llenvs.traces import read_branches, write_traces
from tests.experiments.scripted_parents import parents

OUTPUT = "So 2 + 2 = 5. Then 100. <answer>100</answer>"
"""Every branch's generated text (a wrong sum, then task 0's right answer)."""


def _parents_file(folder, prm):
    """The scripted parents, recorded as scored by ``prm``."""
    path = folder / "runs.jsonl"
    scored = [replace(t, run=replace(t.run, spec=replace(t.run.spec, prm=prm))) for t in parents()]
    write_traces(path, scored)
    return path


def _scores(trace):
    return [(s.text, dict(s.prm_scores), s.rewards.get("prm")) for s in trace.segments]


@pytest.mark.parametrize(
    "what", [Force("So 2 + 2 = 5. "), Feedback("Check again."), COMPLETE], ids=str
)
def test_an_experiment_branch_carries_the_scores_and_spec_of_the_same_branch_by_intervene(
    tmp_path, what
):
    prm = replace(PRMSpec.parse("arithmetic"), class_name="ArithmeticPRM")
    path = _parents_file(tmp_path, prm)
    recipe = Recipe("x", ParentFilter(limit=1), SegmentAt(1), what)
    run = run_experiment(recipe, path, tmp_path / "x", get_backend("scripted", outputs=[OUTPUT]))
    [made] = read_branches(path)
    assert EXPERIMENT_METADATA in made.metadata and run.ran == 1

    [planned] = plan_file(recipe, path)
    job = planned.job
    alone = tmp_path / "alone" / "runs.jsonl"
    alone.parent.mkdir()
    write_traces(alone, [job.request.parent])
    [by_intervene] = intervene(
        alone,
        job.request,
        get_backend("scripted", outputs=[OUTPUT]),
        prm=prm.name,  # as the CLI and the workbench do: the parent's own PRM
        sampling_params=replace(job.params(), seed=job.seed),
    )
    assert made.run.spec == by_intervene.run.spec
    assert made.run.spec.prm == prm
    assert _scores(made) == _scores(by_intervene)
    # every step is scored, the branch's own generated ones too, not only the replayed ones
    assert all("prm" in s.prm_scores for s in made.segments)
    assert PRM_UNSCORED not in made.metadata


def test_a_parent_prm_that_cannot_be_made_here_is_a_reason_on_every_branch(tmp_path):
    gone = PRMSpec.parse("transformers/no/such/prm", convention="math-shepherd")
    path = _parents_file(tmp_path, gone)
    recipe = Recipe("x", ParentFilter(limit=2), SegmentAt(1), Force("So 100. "))
    run_experiment(recipe, path, tmp_path / "x", get_backend("scripted", outputs=[OUTPUT] * 2))
    branches = list(read_branches(path))
    assert len(branches) == 2
    for made in branches:
        assert made.run.spec.prm is None
        assert not any(s.prm_scores for s in made.segments)
        reason = made.metadata[PRM_UNSCORED]
        assert reason.startswith("not scored: the parent's PRM transformers/no/such/prm")
        assert "cannot be made here" in reason


def test_a_parent_without_a_prm_gives_unscored_branches_without_a_reason(tmp_path):
    path = _parents_file(tmp_path, None)
    recipe = Recipe("x", ParentFilter(limit=1), SegmentAt(1), Force("So 100. "))
    run_experiment(recipe, path, tmp_path / "x", get_backend("scripted", outputs=[OUTPUT]))
    [made] = read_branches(path)
    assert made.run.spec.prm is None and PRM_UNSCORED not in made.metadata
