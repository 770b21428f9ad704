"""``llenvs rerun``: a stored trace made again from its record alone, compared with the record.

The real-model case records a trace of the embedded SmolLM2 inside the test and reruns it: a
committed sample would come back identical only on the CPU that recorded it (float32 sums round
otherwise elsewhere, and a greedy run can part at a near-tie). The vLLM case is in
``test_openai_cli.py`` (beside the evaluation it reruns).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from llenvs.cli.main import main
from llenvs.core.run_spec import ModelSpec, Provider, TaskSource
from llenvs.traces import RunRecord, find_trace, read_branches, read_traces, write_traces
from tests.cli.test_commands import llenvs

SAMPLES = Path(__file__).parents[2] / "sample_traces"
TEXT = "Count. So 8. <answer>8</answer>"


def _write(path: Path, *texts: str) -> Path:
    path.write_text("".join(json.dumps(text) + "\n" for text in texts))
    return path


@pytest.fixture
def recorded(tmp_path):
    """One scripted leg_counting trace, and the responses file that played it."""
    responses = _write(tmp_path / "responses.jsonl", TEXT)
    out = tmp_path / "traces.jsonl"
    code = main(
        ["evaluate", "--env", "leg_counting", "--size", "100", "--seed", "42", "--num-tasks",
         "1", "--segmenter", "sentence", "--backend", "scripted", "--responses", str(responses),
         "-o", str(out), "--no-progress", "--no-log"]
    )  # fmt: skip
    assert code == 0
    return out, responses


def test_the_same_responses_make_the_trace_again_identical(recorded, capsys):
    out, responses = recorded
    capsys.readouterr()
    assert main(["rerun", str(out), "--responses", str(responses), "--no-progress"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1] == "identical: 2 segments, the same text"
    assert "made again with scripted, greedy, 256 tokens" in printed[0]


def test_another_response_is_reported_from_its_first_differing_segment(recorded, capsys, tmp_path):
    out, _ = recorded
    other = _write(tmp_path / "other.jsonl", "Count. So 9. <answer>9</answer>")
    capsys.readouterr()
    assert main(["rerun", str(out), "--responses", str(other), "--no-progress"]) == 1
    printed = capsys.readouterr().out.splitlines()
    assert printed[1].startswith("differs from segment 1 on (character 10 of 31)")
    assert printed[2:] == [
        "segment 1 recorded: 'So 8. <answer>8</answer>'",
        "segment 1 now:      'So 9. <answer>9</answer>'",
    ]


@pytest.mark.slow
def test_a_branch_is_made_again_from_its_parent_and_intervention(recorded, tmp_path):
    out, _ = recorded
    forced = _write(tmp_path / "forced.jsonl", "<answer>100</answer>")
    done = llenvs(
        "intervene", out, "--at", "1", "--force", "So 100. ", "--backend", "scripted",
        "--responses", forced, "--no-progress", cwd=tmp_path,
    )  # fmt: skip
    assert "appended" in done.stdout
    (child,) = read_branches(out)
    again = llenvs(
        "rerun", out, "--trace", child.trace_id, "--responses", forced, "--no-progress",
        cwd=tmp_path, check=False,
    )  # fmt: skip
    assert again.returncode == 0, again.stdout + again.stderr
    assert (
        again.stdout.splitlines()[-1] == f"identical: {len(child.segments)} segments, the same text"
    )


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "was made by the scripted backend: give --responses FILE"),
        (["--responses", "x.jsonl", "--base-url", "http://127.0.0.1:1/v1"],
         "--base-url is for --backend openai/<model>, not 'scripted'"),
    ],
)  # fmt: skip
def test_bad_input_is_refused_before_a_model_loads(recorded, capsys, extra, message):
    out, _ = recorded
    capsys.readouterr()
    assert main(["rerun", str(out), "--no-progress", *extra]) == 2
    assert message in capsys.readouterr().err


def test_a_trace_without_a_model_cannot_be_made_again(tmp_path, capsys):
    given = find_trace(SAMPLES / "leg_counting-smollm2.jsonl", "1")
    path = tmp_path / "given.jsonl"
    write_traces(path, [replace(given, run=RunRecord())])
    assert main(["rerun", str(path), "--no-progress"]) == 2
    assert "records no model (a given or imported text): it cannot be made again" in (
        capsys.readouterr().err
    )


@pytest.mark.slow
def test_a_trace_of_the_embedded_model_records_its_precision_and_reruns_in_it(tmp_path, capsys):
    """Evaluate one task for 16 tokens, then rerun it from the record: float32, identical."""
    out = tmp_path / "embedded.jsonl"
    code = main(
        ["evaluate", "--env", "leg_counting", "--size", "100", "--seed", "42", "--num-tasks",
         "1", "--backend", "transformers", "--max-tokens", "16", "-o", str(out),
         "--no-progress", "--no-log"]
    )  # fmt: skip
    assert code == 0
    [trace] = read_traces(out)
    assert trace.run.spec.model == ModelSpec(Provider.EMBEDDED, dtype="float32")
    assert json.loads(out.read_text())["run"]["spec"]["model"] == {
        "provider": "embedded",
        "dtype": "float32",
    }
    assert trace.run.spec.task == TaskSource.parse("leg_counting", size=100, seed=42, tasks="0-0")
    capsys.readouterr()
    assert main(["rerun", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert (
        "made again with transformers/SmolLM2-135M-Instruct in float32, greedy, 16" in (printed[0])
    )
    assert printed[-1].startswith("identical: ")


def test_rerun_names_the_fields_an_older_record_kept(recorded, capsys, tmp_path):
    out, responses = recorded
    [trace] = read_traces(out)
    odd = replace(trace, run=replace(trace.run, unknown={"prm.colour": "blue"}))
    write_traces(out, [odd])
    capsys.readouterr()
    assert main(["rerun", str(out), "--responses", str(responses), "--no-progress"]) == 0
    assert "unknown fields: prm.colour (kept, not used)" in capsys.readouterr().out
