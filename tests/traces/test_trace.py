import dataclasses
import json

import pytest
from hypothesis import given, settings

from llenvs.core import Force, read_record
from llenvs.traces import (
    SCHEMA_VERSION,
    BranchRecord,
    SegmentFlag,
    SegmentRecord,
    Trace,
    TraceFormatError,
)
from tests.traces.factories import make_trace, traces


def test_the_dict_round_trips_through_json_exactly():
    trace = make_trace(parent=BranchRecord("abc", 2, Force("So 4. ")))
    data = json.loads(json.dumps(trace.to_dict()))
    assert Trace.from_dict(data) == trace
    assert Trace.from_dict(data).to_dict() == trace.to_dict()


@settings(max_examples=60, deadline=None)
@given(traces())
def test_any_valid_trace_round_trips_through_json(trace):
    data = json.loads(json.dumps(trace.to_dict(), allow_nan=False))
    assert Trace.from_dict(data) == trace


def test_defaults_give_a_fresh_id_a_utc_time_and_the_current_version():
    first, second = make_trace(), make_trace()
    assert first.trace_id != second.trace_id and len(first.trace_id) == 32
    assert first.created_at.endswith("+00:00")
    assert first.schema_version == SCHEMA_VERSION == 5


def test_segments_must_join_to_the_response():
    with pytest.raises(TraceFormatError, match="join to the response"):
        make_trace(response="something else")


def test_spans_must_be_contiguous_and_indices_in_order():
    trace = make_trace()
    shifted = dataclasses.replace(trace.segments[1], start=9, end=9 + len(trace.segments[1].text))
    with pytest.raises(TraceFormatError, match="segment 1 starts at 9, expected 7"):
        dataclasses.replace(trace, segments=(trace.segments[0], shifted, trace.segments[2]))
    with pytest.raises(TraceFormatError, match="segment 0 has index 1"):
        dataclasses.replace(
            trace, segments=trace.segments[1:], response="Then 8. <answer>8</answer>"
        )


def test_a_span_must_match_its_text():
    with pytest.raises(TraceFormatError, match=r"span \[0, 3\) has length 3"):
        SegmentRecord(0, 0, 3, "ab")


def test_a_segment_has_exactly_one_origin():
    both = frozenset({SegmentFlag.GENERATED, SegmentFlag.FORCED})
    with pytest.raises(TraceFormatError, match="exactly one of generated / forced / replayed"):
        SegmentRecord(0, 0, 1, "a", flags=both)
    with pytest.raises(TraceFormatError, match="exactly one"):
        SegmentRecord(0, 0, 1, "a", flags=frozenset({SegmentFlag.ONE_SHOT}))


def test_logprobs_need_one_value_per_token():
    with pytest.raises(TraceFormatError, match="one value per token id"):
        SegmentRecord(0, 0, 1, "a", token_ids=(1, 2), logprobs=(-0.1,))


def test_non_finite_rewards_and_non_json_metadata_are_refused():
    with pytest.raises(TraceFormatError, match=r"final_rewards\.x: expected a finite number"):
        make_trace(final_rewards={"x": float("inf")})
    with pytest.raises(TraceFormatError, match=r"^metadata.k: not JSON-safe: \(1,\)"):
        make_trace(metadata={"k": (1,)})


def test_an_unknown_schema_version_is_refused_naming_the_supported_ones():
    data = make_trace().to_dict()
    data["schema_version"] = 6
    with pytest.raises(
        TraceFormatError, match="unknown trace schema_version 6: this llenvs reads 1, 2, 3, 4, 5"
    ):
        Trace.from_dict(data)
    with pytest.raises(TraceFormatError, match="schema_version"):
        make_trace(schema_version=6)
    with pytest.raises(TraceFormatError, match="read, and upgraded, by Trace"):
        make_trace(schema_version=1)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("response"), "trace.response: missing"),
        (lambda d: d.update(extra=1), "trace: unknown field"),
        (
            lambda d: d["segments"][0].update(end="7"),
            r"trace.segments\[0\].end: expected an integer",
        ),
        (
            lambda d: d["segments"][0].update(flags=["nope"]),
            r"trace.segments\[0\].flags\[0\]: unknown value 'nope': choose from 'generated'",
        ),
        (
            lambda d: d["messages"][0].update(role="robot"),
            r"trace.messages\[0\].role: unknown value 'robot': choose from 'system'",
        ),
        (lambda d: d["task"].update(task_index=True), "trace.task.task_index: expected an integer"),
        (lambda d: d.update(success="yes"), "trace.success: expected true or false"),
        (
            lambda d: d.update(
                parent={
                    "parent_id": "p",
                    "segment_index": 0,
                    "intervention": {"kind": "undo", "text": None},
                }
            ),
            "unknown kind 'undo'",
        ),
    ],
)
def test_malformed_dicts_name_the_field(change, message):
    data = make_trace().to_dict()
    change(data)
    with pytest.raises(TraceFormatError, match=message):
        Trace.from_dict(data)


def test_an_intervention_text_is_required_exactly_for_force_and_feedback():
    def record(kind, text):
        return {"parent_id": "p", "segment_index": 1, "intervention": {"kind": kind, "text": text}}

    with pytest.raises(TraceFormatError, match="a force intervention needs a text"):
        read_record(BranchRecord, record("force", None), "trace.parent", TraceFormatError)
    with pytest.raises(TraceFormatError, match="a complete intervention takes no text"):
        read_record(BranchRecord, record("complete", "x"), "trace.parent", TraceFormatError)
    with pytest.raises(
        TraceFormatError, match="must be a Force, Feedback, Complete, Resample or Substitute"
    ):
        BranchRecord("p", 1, "force")


def test_records_must_have_their_types():
    with pytest.raises(TraceFormatError, match=r"^run: must be a RunRecord"):
        make_trace(run={"model": "m"})
    with pytest.raises(TraceFormatError, match=r"^parent: must be a BranchRecord"):
        make_trace(parent={"parent_id": "p"})
