"""The intervention values: made once, checked when made, recorded and read back."""

import copy
import json
import pickle
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llenvs.core import (
    COMPLETE,
    Complete,
    Feedback,
    Force,
    Resample,
    SamplingParams,
    intervention_from_record,
    read_record,
)
from llenvs.core.errors import OutOfBoundsError, RecordFormatError
from llenvs.evaluation import COMPLETE as GUIDE_COMPLETE
from llenvs.evaluation import ForceAction, step_decision
from llenvs.traces import BranchRecord, Trace, TraceFormatError
from tests.traces.factories import interventions, make_trace, sampling_params

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces"


@given(interventions())
def test_every_intervention_comes_back_from_its_record_through_json(intervention):
    record = json.loads(json.dumps(intervention.to_record()))
    assert intervention_from_record(record) == intervention


@given(st.text(min_size=1))
def test_a_force_round_trips(text):
    assert intervention_from_record(Force(text).to_record()) == Force(text)


@given(st.text(min_size=1).filter(str.strip))
def test_a_feedback_round_trips(text):
    assert intervention_from_record(Feedback(text).to_record()) == Feedback(text)


def test_complete_round_trips_to_the_one_complete():
    assert intervention_from_record(COMPLETE.to_record()) is COMPLETE


@given(st.integers(1, 16), st.none() | sampling_params())
def test_a_resample_round_trips(n, params):
    record = json.loads(json.dumps(Resample(n, params).to_record()))
    assert intervention_from_record(record) == Resample(n, params)


def test_a_single_resample_as_the_parent_samples_writes_what_resamples_always_wrote():
    assert Resample().to_record() == {"kind": "resample", "text": None}


def test_the_old_sidecar_records_read_into_the_values():
    records = [
        json.loads(line)["parent"]["intervention"]
        for path in sorted(SAMPLES.glob("*.branches.jsonl"))
        for line in path.read_text().splitlines()
        if line.strip()
    ]
    kinds = {record["kind"] for record in records}
    assert kinds == {"force", "feedback", "complete", "resample"}  # schema 2 and 3 files
    for record in records:
        value = intervention_from_record(record)
        assert value.to_record() == record  # read, then written, as it was
        match value:
            case Force(text=text) | Feedback(text=text):
                assert text == record["text"]
            case Complete():
                assert value is COMPLETE
            case Resample(n=n, params=params):
                assert (n, params) == (1, None)


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda: Force(""), ValueError, "the forced segment needs a text"),
        (lambda: Force(None), TypeError, "a Force's text must be a string, got None"),
        (lambda: Feedback(" \n"), ValueError, "the feedback needs a text that is not blank"),
        (lambda: Feedback(3), TypeError, "a Feedback's text must be a string, got 3"),
        (lambda: Resample(0), OutOfBoundsError, r"samples must be 1\.\.16 \(.*\), got 0"),
        (lambda: Resample(17), OutOfBoundsError, r"samples must be 1\.\.16 \(.*\), got 17"),
        (lambda: Resample(True), OutOfBoundsError, "samples must be an integer 1..16"),
        (lambda: Resample(2, {"seed": 1}), TypeError, "params must be SamplingParams"),
    ],
)
def test_what_runs_used_to_refuse_cannot_be_made(make, error, message):
    with pytest.raises(error, match=message):
        make()


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (
            {"kind": "rewind"},
            "unknown kind 'rewind': choose from force, feedback, complete, resample",
        ),
        ({"kind": "force", "text": None}, "a force intervention needs a text, got null"),
        ({"kind": "feedback"}, "a feedback intervention needs a text, got null"),
        ({"kind": "resample", "text": "x"}, "a resample intervention takes no text, got 'x'"),
        (
            {"kind": "complete", "text": None, "samples": 2},
            r"^unknown field\(s\) for a complete: samples: choose from kind, text$",
        ),
        (
            {"kind": "resample", "n": 2},
            r"^unknown field\(s\) for a resample: n: choose from kind, text, samples, "
            "sampling_params$",
        ),
        ({"kind": "force", "text": 3}, "^text: expected a string, got 3$"),
        ({"kind": "resample", "text": None, "samples": "8"}, "^samples: expected an integer"),
        ({"kind": "resample", "samples": True}, "^samples: expected an integer, got True$"),
        ({"kind": "resample", "samples": 0}, "^samples: expected an integer >= 1, got 0$"),
        ({"kind": "resample", "samples": 17}, r"^samples must be 1\.\.16 \(.*\), got 17$"),
        (
            {"kind": "resample", "text": None, "sampling_params": {"temp": 1}},
            r"^sampling_params: unknown field\(s\): temp: choose from max_tokens, temperature,",
        ),
        (
            {"kind": "resample", "sampling_params": {"temperature": "hot"}},
            "^sampling_params.temperature: expected a number, got 'hot'$",
        ),
        ({"kind": ["force"]}, r"^kind: unknown kind \['force'\]: choose from force,"),
        ("force", "expected an object"),
    ],
)
def test_a_bad_record_is_refused_naming_the_field(record, message):
    with pytest.raises(RecordFormatError, match=message):
        intervention_from_record(record)


@pytest.mark.parametrize(
    ("record", "value"),
    [
        ({"kind": "complete"}, COMPLETE),
        ({"kind": "resample"}, Resample()),
        ({"kind": "resample", "text": None, "samples": 1, "sampling_params": None}, Resample()),
        ({"kind": "resample", "samples": 3}, Resample(3)),
    ],
)
def test_a_record_without_its_nulls_reads_as_written(record, value):
    """A recipe's TOML table has no null: a text or a sampling left out reads as null."""
    assert intervention_from_record(record) == value


def test_a_bad_record_in_a_trace_names_the_path_inside_the_intervention():
    data = {
        "parent_id": "p",
        "segment_index": 0,
        "intervention": {"kind": "resample", "sampling_params": {"top_p": 2.0}},
    }
    match = r"^trace\.parent\.intervention\.sampling_params: top_p must be in \(0, 1\], got 2\.0$"
    with pytest.raises(TraceFormatError, match=match):
        read_record(BranchRecord, data, "trace.parent", TraceFormatError)
    data["intervention"] = {"kind": "resample", "samples": "2"}
    match = r"^trace\.parent\.intervention\.samples: expected an integer, got '2'$"
    with pytest.raises(TraceFormatError, match=match):
        read_record(BranchRecord, data, "trace.parent", TraceFormatError)


def test_a_branch_keeps_its_metadata_and_its_resamples_sampling_through_json():
    params = SamplingParams(max_tokens=64, temperature=0.7, top_k=5, seed=3, stop=("</a>",))
    parent = BranchRecord("p" * 32, 2, Resample(4, params))
    trace = make_trace(parent=parent, metadata={"on_policy": 0.5, "prm_unscored": "why"})
    data = json.loads(json.dumps(trace.to_dict()))
    assert data["parent"]["intervention"] == {
        "kind": "resample",
        "text": None,
        "samples": 4,
        "sampling_params": params.to_record(),
    }
    again = Trace.from_dict(data)
    assert again == trace and again.parent.intervention.params == params
    assert again.metadata == {"on_policy": 0.5, "prm_unscored": "why"}


def test_a_bad_record_in_a_trace_names_the_trace_field():
    data = {"parent_id": "p", "segment_index": 0, "intervention": {"kind": "feedback", "text": ""}}
    with pytest.raises(ValueError, match=r"trace\.parent\.intervention: the feedback needs a text"):
        read_record(BranchRecord, data, "trace.parent", TraceFormatError)


def test_complete_is_the_guides_complete():
    assert Complete() is COMPLETE is GUIDE_COMPLETE
    assert repr(COMPLETE) == "COMPLETE"
    assert pickle.loads(pickle.dumps(COMPLETE)) is COMPLETE
    assert copy.deepcopy(COMPLETE) is COMPLETE


def test_each_intervention_is_applied_as_the_step_decision_a_callback_would_return():
    assert step_decision(Force("x = 4. ")) == ForceAction("x = 4. ")
    assert step_decision(Feedback("Recount.")) == "Recount."
    assert step_decision(COMPLETE) is GUIDE_COMPLETE
    assert step_decision(Resample(3, SamplingParams(temperature=0.7))) is None


def test_the_values_are_frozen():
    with pytest.raises(AttributeError):
        Force("x").text = "y"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        Resample().n = 2  # type: ignore[misc]
