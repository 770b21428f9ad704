"""The experiment file's lines are declared records: files written before still read, and a
bad line is named by its field's path."""

from __future__ import annotations

import json

import pytest

from llenvs.core import COMPLETE, Feedback
from llenvs.experiments import (
    BranchOutcome,
    EveryBoundary,
    ExperimentError,
    ParentFilter,
    Recipe,
    RelativePositions,
    append_outcome,
    read_experiment,
    start_experiment,
)

OLD_HEADER = {
    "kind": "experiment",
    "experiment_version": 1,
    "experiment_id": "49e21860dc23a974",
    "created_at": "2026-12-02T03:28:44+00:00",
    "parents_file": "runs.jsonl",
    "recipe": {
        "name": "misleading-hint",
        "parents": {"tasks": [2, 3]},
        "where": {"rule": "relative", "fractions": [0.25, 0.5]},
        "what": {"kind": "feedback", "text": "Hint: not {expected}."},
        "how": {"samples": 1, "seed": 0},
    },
}
"""A header as the first layout wrote it: no ``outcome`` (it meant all), fields in its order."""

OLD_BRANCH = {
    "kind": "branch",
    "parent_id": "486b",
    "task_index": 2,
    "segment": 4,
    "at": 5,
    "segments": 8,
    "sample": 0,
    "seed": 0,
    "branch_id": "bd36",
    "parent_success": True,
    "parent_answer": "12",
    "success": True,
    "answer": "12",
    "prm_score": 1.0,
    "error": None,
}
"""A branch line written before on-policy scores existed."""


def _write(path, *records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def test_a_file_written_before_reads_and_resumes(tmp_path):
    path = tmp_path / "hint.experiment.jsonl"
    _write(path, OLD_HEADER, OLD_BRANCH)
    header, [outcome] = read_experiment(path)
    recipe = Recipe(
        "misleading-hint",
        ParentFilter(tasks=(2, 3)),
        RelativePositions((0.25, 0.5)),
        Feedback("Hint: not {expected}."),
    )
    assert header.recipe == recipe
    assert (outcome.at, outcome.on_policy, outcome.on_policy_logprob) == (5, None, None)
    (tmp_path / "runs.jsonl").touch()
    assert start_experiment(path, recipe, tmp_path / "runs.jsonl") == header  # resumed


def test_what_the_writers_store_reads_back(tmp_path):
    path = tmp_path / "r.experiment.jsonl"
    (tmp_path / "runs.jsonl").touch()
    recipe = Recipe("r", ParentFilter(), EveryBoundary(), COMPLETE)
    header = start_experiment(path, recipe, tmp_path / "runs.jsonl")
    outcome = BranchOutcome(**{k: v for k, v in OLD_BRANCH.items() if k != "kind"}, on_policy=40.0)
    append_outcome(path, outcome)
    assert read_experiment(path) == (header, [outcome])
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert (first["kind"], first["experiment_version"]) == ("experiment", 1)


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (OLD_BRANCH, "line 1 is not an experiment header (its kind is 'branch'"),
        ({**OLD_HEADER, "experiment_version": 2}, "unknown experiment_version 2: this llenvs"),
        ({**OLD_HEADER, "parents_file": 3}, "header.parents_file: expected a string, got 3"),
        (
            {**OLD_HEADER, "recipe": {**OLD_HEADER["recipe"], "how": {"seed": "0"}}},
            "header.recipe.how.seed: expected an integer, got '0'",
        ),
    ],
)
def test_a_bad_header_is_an_error_naming_the_file_line_and_field(tmp_path, header, message):
    path = tmp_path / "bad.experiment.jsonl"
    _write(path, header)
    with pytest.raises(ExperimentError, match=r"bad\.experiment\.jsonl:1: ") as raised:
        read_experiment(path)
    assert message in str(raised.value)


def test_a_bad_branch_line_is_skipped_naming_its_line_and_field(tmp_path):
    path = tmp_path / "e.experiment.jsonl"
    _write(path, OLD_HEADER, {**OLD_BRANCH, "task_index": "2"}, {**OLD_BRANCH, "colour": 1})
    with pytest.warns(UserWarning) as warned:
        _, outcomes = read_experiment(path)
    assert outcomes == []
    messages = " ".join(str(w.message) for w in warned)
    assert ":2: skipped: branch.task_index: expected an integer, got '2'" in messages
    assert ":3: skipped: branch: unknown field(s): colour: choose from" in messages
