"""The current schema version reads version-1 and version-2 files and always writes itself.

``tests/data/trace_v1.jsonl`` is the first line of ``sample_traces/leg_counting-smollm2.jsonl``
as that file stored it, in version 1: it is never regenerated.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from llenvs.core import SamplingParams
from llenvs.core.run_spec import (
    AnswerOpening,
    ModelSpec,
    PRMKind,
    PRMSpec,
    Provider,
    RunSpec,
    SegmenterSpec,
)
from llenvs.evaluation.branching import trace_sampling_params
from llenvs.traces import (
    SCHEMA_VERSION,
    SUPPORTED_SCHEMA_VERSIONS,
    RunRecord,
    Trace,
    TraceFormatError,
    TraceReader,
    read_traces,
    write_traces,
)
from llenvs.traces.files import is_sidecar
from llenvs.traces.records import TaskIdentity, prompt_hash_of
from tests.traces.factories import make_trace

V1_FILE = Path(__file__).resolve().parents[1] / "data" / "trace_v1.jsonl"


def test_the_versions_written_and_read():
    assert SCHEMA_VERSION == 5 and SUPPORTED_SCHEMA_VERSIONS == (1, 2, 3, 4, 5)


def test_a_stored_v1_file_round_trips_through_the_reader_and_is_written_as_the_current(tmp_path):
    stored = json.loads(V1_FILE.read_text(encoding="utf-8"))
    assert stored["schema_version"] == 1 and "prm" not in stored["run"]
    [trace] = read_traces(V1_FILE)
    assert trace.schema_version == 5
    assert trace.run.spec.prm is None and trace.run.spec.answer_opening is None
    assert trace.task.prompt_hash == prompt_hash_of(stored["task"]["prompt"])
    old = stored["run"]
    assert trace.run.model_name == old["model"]
    assert trace.run.spec.segmenter == SegmenterSpec(old["segmenter"])
    out = tmp_path / "v4.jsonl"
    write_traces(out, [trace])
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["schema_version"] == 5
    assert set(written["run"]) == {
        "spec",
        "chat_template",
        "system_prompt",
        "library_version",
        "unknown",
    }
    assert written["task"]["prompt_hash"] == trace.task.prompt_hash
    [again] = read_traces(out)
    assert again == trace
    # Nothing else changed: the v4 object is the v1 object with its run as a spec.
    del written["run"], written["task"]["prompt_hash"]
    del stored["run"]
    assert {**written, "schema_version": 1} == stored


def test_a_v2_trace_gets_its_prompt_hash_and_a_wrong_recorded_one_is_refused():
    data = make_trace().to_dict()
    del data["task"]["prompt_hash"]
    data["schema_version"], data["run"] = 2, OLD_RUN
    trace = Trace.from_dict(data)
    assert trace.task.prompt_hash == prompt_hash_of(data["task"]["prompt"])
    task = data["task"]
    assert trace.task.identity == TaskIdentity.of(task["environment"], task["prompt"])
    edited = trace.to_dict()
    edited["task"]["prompt"] += " (edited)"
    with pytest.raises(TraceFormatError, match=r"trace\.task\.prompt_hash: .* not the hash"):
        Trace.from_dict(edited)


def test_the_run_spec_round_trips_verbatim():
    prm = PRMSpec.parse("transformers/m", convention="math-shepherd")
    spec = RunSpec(
        model=ModelSpec.parse("transformers", dtype="float32"),
        prm=replace(prm, class_name="TransformersPRM"),
        answer_opening=AnswerOpening("<answer>", 16, "<answer>"),
        sampling=SamplingParams(max_tokens=96, seed=4),
    )
    trace = make_trace(run=RunRecord(spec))
    data = json.loads(json.dumps(trace.to_dict()))
    assert data["run"]["spec"] == spec.to_record()
    assert Trace.from_dict(data) == trace


def test_an_old_prm_record_needs_a_spec_and_never_holds_a_key():
    data = make_trace().to_dict()
    data["schema_version"] = 3
    data["run"] = {**OLD_RUN, "prm": {"name": "ArithmeticPRM"}}
    with pytest.raises(TraceFormatError, match=r"run\.prm\.spec"):
        Trace.from_dict(data)
    data["run"] = {**OLD_RUN, "prm": {"spec": "judge:openai/m", "api_key": "sk-x"}}
    with pytest.raises(TraceFormatError, match="never record a secret, got 'api_key'"):
        Trace.from_dict(data)
    data["run"] = {**OLD_RUN, "prm": "arithmetic"}
    with pytest.raises(TraceFormatError, match=r"trace\.run\.prm: expected an object"):
        Trace.from_dict(data)


OLD_RUN = {
    "model": "transformers/SmolLM2-135M-Instruct",
    "chat_template": None,
    "system_prompt": None,
    "sampling_params": {
        "max_tokens": 96,
        "temperature": 0.0,
        "top_p": 1.0,
        "top_k": None,
        "seed": None,
        "stop": ["</answer>"],
        "logprobs": False,
    },
    "seed": None,
    "segmenter": "composite:line:\\n\\n+sentence",
    "library_version": "0.1.0",
    "prm": {"spec": "arithmetic", "name": "ArithmeticPRM"},
    "answer_opening": {
        "text": "\n\nFinal answer: <answer>",
        "max_tokens": 16,
        "marker": "<answer>",
        "stop": ["\n\n"],
    },
}
"""A version-3 run record, as the sample traces hold it."""


def _old_trace(**run: object) -> Trace:
    data = make_trace().to_dict()
    data["schema_version"] = 3
    data["run"] = {**OLD_RUN, **run}
    return Trace.from_dict(data)


def test_a_v3_record_with_an_unknown_prm_field_keeps_it_and_writes_it_back(tmp_path):
    trace = _old_trace(prm={"spec": "arithmetic", "name": "ArithmeticPRM", "colour": "blue"})
    assert trace.run.spec.prm == PRMSpec(PRMKind.ARITHMETIC, class_name="ArithmeticPRM")
    assert dict(trace.run.unknown) == {"prm.colour": "blue"}
    path = tmp_path / "t.jsonl"
    write_traces(path, [trace])
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["schema_version"] == 5 and written["run"]["unknown"] == {"prm.colour": "blue"}
    assert list(read_traces(path)) == [trace]


def test_old_fields_no_spec_names_go_to_unknown_never_dropped():
    trace = _old_trace(
        model="coin",
        backend_options={"base_url": "http://h/v1"},
        seed=5,
        sampling_params={"max_tokens": 9, "beam": 2},
        prm={"spec": "vllm/m", "model": "other", "base_url": "http://p/v1"},
    )
    assert trace.run.spec.model is None and trace.run.spec.sampling is None
    assert dict(trace.run.unknown) == {
        "model": "coin",
        "backend_options": {"base_url": "http://h/v1"},
        "sampling_params": {"max_tokens": 9, "beam": 2},
        "seed": 5,
        "prm.model": "other",
    }
    assert trace.run.spec.prm == PRMSpec.parse("vllm/m", base_url="http://p/v1")
    assert trace.run.model_name == "coin"


def test_old_openai_options_and_seed_map_to_the_spec():
    options = {"base_url": "http://h/v1", "mode": "chat", "tokenizer": "tok"}
    sampling = {**OLD_RUN["sampling_params"], "temperature": 0.8, "seed": 7}
    trace = _old_trace(model="openai/m", backend_options=options, sampling_params=sampling, seed=7)
    assert trace.run.spec.model == ModelSpec.parse("openai/m", **options)
    assert trace.run.spec.sampling == SamplingParams(
        max_tokens=96, temperature=0.8, seed=7, stop=("</answer>",)
    )
    assert not trace.run.unknown
    judged = _old_trace(prm={"spec": "judge", "name": "JudgePRM", "model": "scripted"})
    assert judged.run.spec.prm == PRMSpec(
        PRMKind.JUDGE, judge=ModelSpec.parse("scripted"), class_name="JudgePRM"
    )
    own = _old_trace(prm={"spec": "judge", "model": "transformers/SmolLM2-135M-Instruct"})
    assert own.run.spec.prm == PRMSpec.parse("judge") and not own.run.unknown


SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces"

EXPECTED_BUDGET = {
    "basic_arithmetic": 160,
    "leg_counting": 96,
    "letter_counting": 80,
    "number_format": 80,
    "products": 80,
}
"""The token budget each sample file was recorded with."""


TRACE_FILES = sorted(
    p
    for p in SAMPLES.glob("*-smollm2*.jsonl")
    if not is_sidecar(p) or p.name.endswith(".branches.jsonl")
)
"""The sample trace files the embedded model recorded, and their branches (an analysis sidecar
holds step values; the Thought Anchors sample is imported: ``test_thought_anchors``)."""


@pytest.mark.parametrize("path", TRACE_FILES, ids=lambda p: p.name)
def test_every_sample_file_reads_into_the_expected_spec_and_back(path, tmp_path):
    traces = list(TraceReader(path))
    assert traces
    budget = EXPECTED_BUDGET[path.name.split("-")[0]]
    for trace in traces:
        spec = trace.run.spec
        # the embedded model, with the precision it ran in where the line records one (every
        # line made since the run record kept it: float32; older lines: none, the same default)
        assert replace(spec.model, dtype=None) == ModelSpec(Provider.EMBEDDED)
        assert spec.model.dtype in (None, "float32")
        assert spec.prm == PRMSpec(PRMKind.ARITHMETIC, class_name="ArithmeticPRM")
        assert spec.sampling is not None and spec.sampling.max_tokens == budget
        assert spec.sampling.stop == ("</answer>",)
        assert spec.answer_opening == AnswerOpening()
        assert spec.segmenter == SegmenterSpec("composite:line:\\n\\n+sentence")
        assert not trace.run.unknown
    resampled = [t for t in traces if t.run.spec.sampling.temperature > 0]
    assert all(t.run.spec.sampling.seed is not None for t in resampled)
    out = tmp_path / path.name
    write_traces(out, traces)
    assert all(json.loads(line)["schema_version"] == 5 for line in out.read_text().splitlines())
    assert list(TraceReader(out)) == traces


def test_a_trace_with_unknown_sampling_is_never_resampled():
    trace = _old_trace(sampling_params={"max_tokens": 9, "beam": 2})
    with pytest.raises(TraceFormatError, match=r"unknown field\(s\): beam.*not sampled again"):
        trace_sampling_params(trace)
    imported = _old_trace(sampling_params={})
    assert trace_sampling_params(imported) is None  # resampled with the defaults


def test_a_v4_line_reads_as_v5_without_annotations_and_only_annotated_segments_write_them():
    trace = make_trace()
    data = trace.to_dict()
    assert all("annotations" not in segment for segment in data["segments"])  # none: not written
    old = {**data, "schema_version": 4}
    assert Trace.from_dict(old) == trace
    annotated = replace(
        trace,
        segments=(
            replace(trace.segments[0], annotations={"function_tags": ["plan"], "depends_on": []}),
            *trace.segments[1:],
        ),
    )
    written = annotated.to_dict()
    assert written["segments"][0]["annotations"] == {"function_tags": ["plan"], "depends_on": []}
    assert Trace.from_dict(json.loads(json.dumps(written))) == annotated
    bad = json.loads(json.dumps(written))
    bad["segments"][0]["annotations"] = ["plan"]
    with pytest.raises(TraceFormatError, match=r"trace\.segments\[0\]\.annotations: expected"):
        Trace.from_dict(bad)
