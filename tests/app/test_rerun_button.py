"""Browse's *Run again from its record*, with the embedded model, on the sample file.

Line 1 of ``leg_counting-smollm2.jsonl`` was recorded greedily by the embedded model and comes
back identical; line 2 does not (recorded before float32 became the default on every CPU: a
bfloat16 row of a padded batch that parted at a near-tie), and the header says from which
segment. A trace whose model cannot be reached has the button off, with the reason.
"""

from __future__ import annotations

import shutil

from llenvs.core.spec import ModelSpec, RunSpec
from llenvs.traces import read_traces
from llenvs.ui.trace_source import TRACES_DIR_ENV
from tests.app.test_pages import REPO, open_page

SAMPLE = REPO / "sample_traces" / "leg_counting-smollm2.jsonl"


def _browse(tmp_path, monkeypatch, line):
    traces = tmp_path / "traces"
    traces.mkdir(exist_ok=True)
    shutil.copy(SAMPLE, traces / SAMPLE.name)
    monkeypatch.setenv(TRACES_DIR_ENV, str(traces))
    return open_page("browse", file=str(traces / SAMPLE.name), trace=str(line))


def test_a_greedy_sample_runs_again_identically_and_another_says_where_it_parts(
    tmp_path, monkeypatch, embedded_backend
):
    del embedded_backend  # converted and loaded once per session; the app shares it
    recorded = list(read_traces(SAMPLE))
    at = _browse(tmp_path, monkeypatch, 1)
    at.button(key=f"rerun-{recorded[0].trace_id}").click().run(timeout=600)
    assert not at.exception, at.exception
    assert [s.value for s in at.success if "Run again" in s.value] == [
        "Run again from its record: identical: 12 segments, the same text."
    ]
    at = _browse(tmp_path, monkeypatch, 2)
    at.button(key=f"rerun-{recorded[1].trace_id}").click().run(timeout=600)
    assert not at.exception, at.exception
    [warning] = [w.value for w in at.warning if "Run again" in w.value]
    assert warning.startswith("Run again from its record: differs from segment 0 on")
    assert f"segment 0 recorded: {recorded[1].segments[0].text!r}" in [t.value for t in at.text]
    assert list(read_traces(tmp_path / "traces" / SAMPLE.name)) == recorded  # nothing written


def test_the_button_is_off_with_the_reason_when_the_model_is_not_here(tmp_path, monkeypatch):
    from dataclasses import replace

    from llenvs.traces import RunRecord, write_traces

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
