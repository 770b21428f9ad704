"""Browse's *Run again from its record*, with the embedded model, on a trace the test records.

A greedy trace of the embedded model, recorded here, comes back identical; the same record with
another response does not, and the header says from which segment. (A committed sample would
come back identical only on the CPU that recorded it: float32 sums round otherwise elsewhere.) A
trace whose model cannot be reached has the button off, with the reason.
"""

from __future__ import annotations

from dataclasses import replace

from llenvs.core import SamplingParams, SegmentedEnvironment
from llenvs.core.registry import environment_registry
from llenvs.core.run_spec import ModelSpec, Provider, RunSpec
from llenvs.evaluation import LogConfig, replay_trace, run_segmented_evaluation
from llenvs.traces import read_traces, write_traces
from llenvs.workbench.files import TRACES_DIR_ENV
from tests.app.test_pages import REPO, open_page

SAMPLE = REPO / "sample_traces" / "leg_counting-smollm2.jsonl"


def test_a_greedy_trace_runs_again_identically_and_another_says_where_it_parts(
    tmp_path, monkeypatch, embedded_backend
):
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=100, seed=42)
    environment = SegmentedEnvironment(base, "sentence")
    result = run_segmented_evaluation(
        environment,
        embedded_backend,
        task_indices=[1],
        sampling_params=SamplingParams(max_tokens=24),
        log=LogConfig(targets=()),
    )
    [greedy] = result.traces
    other = replace(replay_trace(environment, 1, "Seven legs. <answer>7</answer>"), run=greedy.run)
    assert greedy.run.spec.model == ModelSpec(Provider.EMBEDDED, dtype="float32")
    traces = tmp_path / "traces"
    traces.mkdir()
    path = traces / "recorded.jsonl"
    write_traces(path, [greedy, other])
    monkeypatch.setenv(TRACES_DIR_ENV, str(traces))
    at = open_page("browse", file=str(path), trace="1")
    at.button(key=f"rerun-{greedy.trace_id}").click().run(timeout=600)
    assert not at.exception, at.exception
    assert [s.value for s in at.success if "Run again" in s.value] == [
        f"Run again from its record: identical: {len(greedy.segments)} segments, the same text."
    ]
    at = open_page("browse", file=str(path), trace="2")
    at.button(key=f"rerun-{other.trace_id}").click().run(timeout=600)
    assert not at.exception, at.exception
    [warning] = [w.value for w in at.warning if "Run again" in w.value]
    assert warning.startswith("Run again from its record: differs from segment 0 on")
    assert f"segment 0 recorded: {other.segments[0].text!r}" in [t.value for t in at.text]
    assert list(read_traces(path)) == [greedy, other]  # nothing written


def test_the_button_is_off_with_the_reason_when_the_model_is_not_here(tmp_path, monkeypatch):
    from llenvs.traces import RunRecord

    [first, *_] = read_traces(SAMPLE)
    traces = tmp_path / "traces"
    traces.mkdir()
    path = traces / "moved.jsonl"
    folder = RunRecord(RunSpec(model=ModelSpec.parse("transformers/no/such/folder")))
    write_traces(path, [replace(first, run=folder)])
    monkeypatch.setenv(TRACES_DIR_ENV, str(traces))
    at = open_page("browse", file=str(path), trace="1")
    button = at.button(key=f"rerun-{first.trace_id}")
    assert button.disabled
    assert button.help == "its model folder is not here (no/such/folder)"
