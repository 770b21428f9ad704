"""BranchRequest: one intervention at one point, refused when made, passed to the sidecar."""

from __future__ import annotations

import pytest

from llenvs.core import (
    COMPLETE,
    Feedback,
    Force,
    Resample,
    SamplingParams,
    SegmentedEnvironment,
    SentenceSegmenter,
)
from llenvs.evaluation import (
    BranchRequest,
    branch,
    intervene,
    replay_trace,
    rerun_branch,
    trace_sampling_params,
)
from llenvs.inference._backends.scripted import ScriptedBackend
from llenvs.traces import read_branches, write_traces

WRONG = "Count the animals. Deer have 4 legs. So 12 deer have 40. <answer>40</answer>"
RIGHT = "Count the animals. Deer have 4 legs. So 100 in all. <answer>100</answer>"


@pytest.fixture
def parent(leg_counting):
    return replay_trace(SegmentedEnvironment(leg_counting, SentenceSegmenter()), 0, WRONG, "m")


@pytest.mark.parametrize(
    ("at", "intervention", "message"),
    [
        (
            4,
            Resample(),
            r"cannot branch after segment 4: the trace has 3 segments \(choose 0\.\.3\)",
        ),
        (-1, Force("x"), r"cannot branch after segment -1: .*choose 0\.\.3"),
        (
            3,
            COMPLETE,
            r"nothing to complete after segment 3: the trace ended there .*choose 0\.\.2",
        ),
        (3, Resample(4), r"nothing to resample after segment 3: .*or give feedback after it"),
    ],
)
def test_a_request_outside_the_trace_is_refused_when_made(parent, at, intervention, message):
    with pytest.raises(ValueError, match=message):
        BranchRequest(parent, at, intervention)


def test_a_request_holds_an_intervention_value_not_a_kind_string(parent):
    with pytest.raises(
        TypeError, match="must be a Force, Feedback, Complete, Resample or Substitute"
    ):
        BranchRequest(parent, 1, "force")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="the branch point must be an int"):
        BranchRequest(parent, "1", COMPLETE)  # type: ignore[arg-type]
    assert BranchRequest(parent, 3, Feedback("Recount.")).samples == 1  # feedback after the end


def test_a_resample_carries_its_own_sampling(parent):
    request = BranchRequest(parent, 1, Resample(2, SamplingParams(seed=1)))
    with pytest.raises(ValueError, match=r"a Resample samples as its own params say"):
        branch(request, ScriptedBackend([]), sampling_params=SamplingParams(temperature=1.0))


def test_a_resample_set_goes_to_the_sidecar_and_reads_back_as_the_same_request(parent, tmp_path):
    path = tmp_path / "runs.jsonl"
    write_traces(path, [parent])
    params = SamplingParams(temperature=0.8, seed=7, max_tokens=64)
    request = BranchRequest(parent, 1, Resample(3, params))
    made = intervene(path, request, ScriptedBackend([RIGHT]))
    stored = list(read_branches(path))
    assert stored == made and len(stored) == 3
    assert {child.parent for child in stored} == {request.record()}
    assert [child.run.spec.sampling.seed for child in stored] == [7, 1000010, 2000013]
    again = rerun_branch(stored[2], parent, ScriptedBackend([RIGHT]))  # one sample, alone
    assert (
        again.response == stored[2].response
        and again.run.spec.sampling.seed == stored[2].run.spec.sampling.seed
    )
    own = trace_sampling_params(stored[2])
    assert (own.seed, own.temperature, own.max_tokens) == (2000013, 0.8, 64)
    assert again.parent.intervention == Resample(1, own)
