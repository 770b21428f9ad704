import pytest

from llenvs.core import COMPLETE, Feedback, Force, Resample
from llenvs.traces import (
    BranchRecord,
    append_branch,
    branches_path,
    read_branches,
    read_traces,
    write_traces,
)
from tests.traces.factories import make_trace


def test_the_sidecar_sits_next_to_the_trace_file(tmp_path):
    assert branches_path(tmp_path / "runs.jsonl") == tmp_path / "runs.branches.jsonl"
    assert branches_path("a/b.txt").as_posix() == "a/b.txt.branches.jsonl"


def test_branches_round_trip_through_the_sidecar(tmp_path):
    path = tmp_path / "runs.jsonl"
    parent = make_trace()
    write_traces(path, [parent])
    assert list(read_branches(path)) == []
    kinds = [
        BranchRecord(parent.trace_id, 1, Force("So 4 legs. ")),
        BranchRecord(parent.trace_id, 2, Feedback("Check the count.")),
        BranchRecord(parent.trace_id, 0, COMPLETE),
        BranchRecord(parent.trace_id, 3, Resample()),
    ]
    children = [make_trace(parent=branch) for branch in kinds]
    for child in children:
        assert append_branch(path, child) == branches_path(path)
    assert list(read_branches(path)) == children
    assert list(read_traces(path)) == [parent]


def test_only_an_intervention_goes_to_the_sidecar(tmp_path):
    with pytest.raises(ValueError, match="one with a parent"):
        append_branch(tmp_path / "runs.jsonl", make_trace())
    assert not branches_path(tmp_path / "runs.jsonl").exists()
