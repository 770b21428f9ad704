"""The sampling a trace records: read back whole, or refused by name, never silently trimmed.

Issue 25: ``trace_sampling_params`` dropped the keys it did not know, so a trace from a newer
llenvs (say with ``min_p``) was branched and re-run with other settings than it was made with.
"""

from __future__ import annotations

import dataclasses

import pytest

from llenvs.cli.main import main
from llenvs.core import Resample, SamplingParams, SegmentedEnvironment
from llenvs.evaluation import BranchRequest, branch, replay_trace, trace_sampling_params
from llenvs.inference._backends.scripted import ScriptedBackend
from llenvs.traces import Trace, TraceFormatError, read_branches, write_traces

RIGHT = "Count the animals. Deer have 4 legs. So 100 in all. <answer>100</answer>"


def _with_sampling(leg_counting, **sampling):
    """The trace as an older llenvs (schema 3) recorded it, with these sampling parameters."""
    parent = replay_trace(SegmentedEnvironment(leg_counting, "sentence"), 0, RIGHT, "scripted")
    data = parent.to_dict()
    data["schema_version"] = 3
    data["run"] = {
        "model": "scripted",
        "chat_template": None,
        "system_prompt": None,
        "sampling_params": sampling,
        "seed": None,
        "segmenter": "sentence",
        "library_version": "0.1.0",
    }
    return Trace.from_dict(data)


def test_recorded_sampling_reads_back_whole(leg_counting):
    params = SamplingParams(max_tokens=9, temperature=0.5, top_k=4, seed=2, stop=("x",))
    recorded = dataclasses.asdict(params) | {"stop": ["x"]}  # JSON has lists
    assert trace_sampling_params(_with_sampling(leg_counting, **recorded)) == params
    assert trace_sampling_params(_with_sampling(leg_counting)) is None


def test_an_unknown_recorded_key_is_refused_naming_the_key_and_the_trace(leg_counting):
    trace = _with_sampling(leg_counting, max_tokens=64, temperature=0.7, min_p=0.05)
    with pytest.raises(TraceFormatError, match=r"min_p") as error:
        trace_sampling_params(trace)
    message = str(error.value)
    assert trace.trace_id in message and "max_tokens" in message  # the known keys listed
    backend = ScriptedBackend([RIGHT])
    with pytest.raises(TraceFormatError, match="min_p"):
        branch(BranchRequest(trace, 1, Resample()), backend)
    assert backend.requests == []  # refused before anything was generated


def test_a_recorded_value_of_the_wrong_kind_is_refused_naming_the_trace(leg_counting):
    trace = _with_sampling(leg_counting, max_tokens="many")
    with pytest.raises(TraceFormatError, match=rf"{trace.trace_id}.*max_tokens"):
        trace_sampling_params(trace)


def test_the_cli_refuses_to_branch_a_trace_with_an_unknown_sampling_key(
    leg_counting, tmp_path, capsys
):
    path = tmp_path / "t.jsonl"
    write_traces(path, [_with_sampling(leg_counting, max_tokens=64, min_p=0.05)])
    code = main(["intervene", str(path), "--at", "1", "--resample", "--backend", "scripted",
                 "--no-progress"])  # fmt: skip
    assert code == 2 and "min_p" in capsys.readouterr().err
    assert list(read_branches(path)) == []
