"""The current schema version reads version-1 and version-2 files and always writes itself.

``tests/data/trace_v1.jsonl`` is the first line of ``sample_traces/leg_counting-smollm2.jsonl``
as that file stored it, in version 1: it is never regenerated.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llenvs.traces import (
    SCHEMA_VERSION,
    SUPPORTED_SCHEMA_VERSIONS,
    RunRecord,
    Trace,
    TraceFormatError,
    read_traces,
    write_traces,
)
from llenvs.traces.task_identity import TaskIdentity, prompt_hash_of
from tests.traces.factories import make_trace

V1_FILE = Path(__file__).resolve().parents[1] / "data" / "trace_v1.jsonl"


def test_the_versions_written_and_read():
    assert SCHEMA_VERSION == 3 and SUPPORTED_SCHEMA_VERSIONS == (1, 2, 3)


def test_a_stored_v1_file_round_trips_through_the_reader_and_is_written_as_the_current(tmp_path):
    stored = json.loads(V1_FILE.read_text(encoding="utf-8"))
    assert stored["schema_version"] == 1 and "prm" not in stored["run"]
    [trace] = read_traces(V1_FILE)
    assert trace.schema_version == 3
    assert trace.run.prm is None and trace.run.answer_opening is None
    assert trace.task.prompt_hash == prompt_hash_of(stored["task"]["prompt"])
    out = tmp_path / "v3.jsonl"
    write_traces(out, [trace])
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["schema_version"] == 3
    assert written["run"]["prm"] is None and written["run"]["answer_opening"] is None
    assert written["task"]["prompt_hash"] == trace.task.prompt_hash
    [again] = read_traces(out)
    assert again == trace
    # Nothing else changed: the v3 object is the v1 object plus the new run and task fields.
    del written["run"]["prm"], written["run"]["answer_opening"], written["task"]["prompt_hash"]
    assert {**written, "schema_version": 1} == stored


def test_a_v2_trace_gets_its_prompt_hash_and_a_wrong_recorded_one_is_refused():
    data = make_trace().to_dict()
    del data["task"]["prompt_hash"]
    data["schema_version"] = 2
    trace = Trace.from_dict(data)
    assert trace.task.prompt_hash == prompt_hash_of(data["task"]["prompt"])
    task = data["task"]
    assert trace.task.identity == TaskIdentity.of(task["environment"], task["prompt"])
    edited = trace.to_dict()
    edited["task"]["prompt"] += " (edited)"
    with pytest.raises(TraceFormatError, match=r"trace\.task\.prompt_hash: .* not the hash"):
        Trace.from_dict(edited)


def test_the_new_run_fields_round_trip():
    prm = {"spec": "transformers/m", "name": "TransformersPRM", "convention": "math-shepherd"}
    trace = make_trace(
        run=RunRecord(
            model="scripted",
            prm=prm,
            answer_opening={"text": "<answer>", "max_tokens": 16, "marker": "<answer>"},
        )
    )
    data = json.loads(json.dumps(trace.to_dict()))
    assert data["run"]["prm"] == prm and data["run"]["answer_opening"]["text"] == "<answer>"
    assert Trace.from_dict(data) == trace


def test_a_recorded_prm_needs_a_spec_and_never_holds_a_key():
    with pytest.raises(TraceFormatError, match=r"run\.prm\.spec"):
        RunRecord(prm={"name": "ArithmeticPRM"})
    with pytest.raises(TraceFormatError, match="never record a secret, got 'api_key'"):
        RunRecord(prm={"spec": "judge:openai/m", "api_key": "sk-x"})
    data = make_trace().to_dict()
    data["run"]["prm"] = "arithmetic"
    with pytest.raises(TraceFormatError, match=r"trace\.run\.prm: expected an object"):
        Trace.from_dict(data)
