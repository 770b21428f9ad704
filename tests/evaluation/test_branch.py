"""branch: every intervention kind on a stored trace, as the workbench and the CLI run them."""

from __future__ import annotations

import pytest

from llenvs.core import COMPLETE, Feedback, Force, Resample, SegmentedEnvironment, SentenceSegmenter
from llenvs.core.errors import TerminalStateError
from llenvs.evaluation import BranchRequest, branch, replay_trace
from llenvs.inference._backends.scripted import ScriptedBackend
from llenvs.traces import SegmentFlag, Trace, read_traces, write_traces

WRONG = "Count the animals. Deer have 4 legs. So 12 deer have 40. <answer>40</answer>"
RIGHT = "Count the animals. Deer have 4 legs. So 100 in all. <answer>100</answer>"


@pytest.fixture
def parent(leg_counting):
    return replay_trace(SegmentedEnvironment(leg_counting, SentenceSegmenter()), 0, WRONG, "m")


def _flags(trace):
    return [sorted(f.value for f in s.flags) for s in trace.segments]


def test_resample_replays_the_prefix_and_generates_the_rest(parent):
    backend = ScriptedBackend([RIGHT])
    [child] = branch(BranchRequest(parent, 2, Resample()), backend)
    assert child.response == RIGHT and child.success
    assert _flags(child)[:2] == [["replayed"], ["replayed"]]
    assert child.parent.parent_id == parent.trace_id and child.parent.intervention == Resample()
    assert backend.requests[0].prompt.continuation == "Count the animals. Deer have 4 legs. "
    assert child.metadata["prefix_steps"] == 2


def test_complete_finishes_in_one_call(parent):
    backend = ScriptedBackend([RIGHT])
    [child] = branch(BranchRequest(parent, 1, COMPLETE), backend)
    assert len(backend.requests) == 1 and backend.requests[0].stop_at is None
    assert child.response == RIGHT
    assert all("one_shot" in f for f in _flags(child)[1:])


def test_feedback_opens_a_new_turn(parent):
    backend = ScriptedBackend(["Recount: 100. <answer>100</answer>"])
    [child] = branch(BranchRequest(parent, 2, Feedback("Recount the deer.")), backend)
    assert [m.role for m in child.messages] == ["user", "assistant", "user", "assistant"]
    assert child.messages[1].content == "Count the animals. Deer have 4 legs. "
    assert [SegmentFlag.FEEDBACK_AFTER in s.flags for s in child.segments] == [False, True, False]
    assert child.success


def test_force_at_the_end_of_a_finished_trace_is_refused(parent):
    with pytest.raises(TerminalStateError, match="after the terminal step is refused"):
        branch(BranchRequest(parent, len(parent.segments), Force("More. ")), ScriptedBackend([]))
    with pytest.raises(ValueError, match=r"choose 0\.\.3"):
        branch(BranchRequest(parent, 4, Resample()), ScriptedBackend([]))
    with pytest.raises(TypeError):
        Force(None)  # a force without text cannot be made


def test_a_branch_round_trips_through_a_trace_file(parent, tmp_path):
    [child] = branch(BranchRequest(parent, 2, Force("So 100 in all. ")), ScriptedBackend([RIGHT]))
    path = tmp_path / "b.jsonl"
    write_traces(path, [parent, child])
    assert list(read_traces(path)) == [parent, child]
    assert isinstance(child, Trace) and child.parent.intervention == Force("So 100 in all. ")
