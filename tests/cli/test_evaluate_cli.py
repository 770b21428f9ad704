"""Issue 17 (items 7, 9, 11): ``llenvs evaluate`` gives each task its own scripted response,
refuses bad input before anything runs (and before any model loads), and stops cleanly.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import llenvs.inference
from llenvs.cli.main import main
from llenvs.inference._backends.scripted import ScriptedBackend
from llenvs.traces import read_traces

LLENVS = Path(sys.executable).with_name("llenvs")
REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "leg_counting_responses.jsonl"
ENV = ["--env", "leg_counting", "--adapter", "reasoning_gym", "--size", "100", "--seed", "42"]
QUIET = ["--no-progress", "--no-log"]


def _run(capsys, *args) -> tuple[int, str, str]:
    status = main([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _responses(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _example_responses() -> list[str]:
    return [json.loads(line) for line in EXAMPLE.read_text().splitlines() if line.strip()]


@pytest.fixture
def no_backend(monkeypatch):
    """Fail the test if the command builds any backend."""

    def refuse(name, **kwargs):
        raise AssertionError(f"the backend {name!r} was built before the arguments were checked")

    monkeypatch.setattr(llenvs.inference, "get_backend", refuse)


# ---- 7: scripted responses belong to tasks ----------------------------------------------------


@pytest.mark.slow
def test_a_resumed_task_gets_its_own_response(tmp_path):
    out = tmp_path / "x.jsonl"
    args = [
        str(LLENVS), "evaluate", "--env", "leg_counting", "--num-tasks", "2",
        "--backend", "scripted", "--responses", str(EXAMPLE), "-o", str(out), *QUIET,
    ]  # fmt: skip
    first = subprocess.run(args, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    lines = out.read_text().splitlines(keepends=True)
    out.write_text(lines[0])  # task 1 did not finish
    again = subprocess.run(args, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    expected = _example_responses()
    traces = list(read_traces(out))
    assert [t.task.task_index for t in traces] == [0, 1]
    assert [t.response for t in traces] == expected[:2]


def test_tasks_in_any_order_get_their_own_responses(tmp_path, capsys):
    out = tmp_path / "out.jsonl"
    status, _, stderr = _run(
        capsys, "evaluate", *ENV, "--tasks", "3,1", "--backend", "scripted",
        "--responses", EXAMPLE, "-o", out, *QUIET,
    )  # fmt: skip
    assert status == 0, stderr
    expected = _example_responses()
    by_task = {t.task.task_index: t.response for t in read_traces(out)}
    assert by_task == {3: expected[3], 1: expected[1]}


def test_a_task_index_line_answers_its_task_and_a_plain_line_i_task_i(tmp_path, capsys):
    two = {"task_index": 2, "response": "Two. <answer>2</answer>"}
    responses = _responses(tmp_path / "r.jsonl", [two, "One. <answer>1</answer>"])
    out = tmp_path / "out.jsonl"
    args = ["evaluate", *ENV, "--backend", "scripted", "--responses", responses, "-o", out]
    status, _, stderr = _run(capsys, *args, "--tasks", "1,2", *QUIET)
    assert status == 0, stderr
    by_task = {t.task.task_index: t.response for t in read_traces(out)}
    assert by_task == {2: two["response"], 1: "One. <answer>1</answer>"}


def test_a_task_without_a_response_is_refused_before_anything_runs(tmp_path, capsys):
    two = {"task_index": 2, "response": "Two. <answer>2</answer>"}
    responses = _responses(tmp_path / "r.jsonl", [two])
    out = tmp_path / "out.jsonl"
    args = ["evaluate", *ENV, "--backend", "scripted", "--responses", responses, "-o", out]
    status, _, stderr = _run(capsys, *args, "--tasks", "1,2", *QUIET)
    assert status == 2
    assert "has no response for task 1 " in stderr
    assert not out.exists()


# ---- 9: bad input fails at once ---------------------------------------------------------------


def test_an_empty_responses_file_is_refused_before_anything_runs(tmp_path, capsys):
    responses = tmp_path / "empty.jsonl"
    responses.write_text("\n")
    out = tmp_path / "out.jsonl"
    started = time.perf_counter()
    status, _, stderr = _run(
        capsys, "evaluate", *ENV, "--num-tasks", "2", "--backend", "scripted",
        "--responses", responses, "-o", out, *QUIET,
    )  # fmt: skip
    assert time.perf_counter() - started < 5
    assert status == 2
    assert stderr.count("\n") == 1 and "empty.jsonl holds no response" in stderr
    assert not out.exists()


# ---- 11: arguments are checked before the model loads -----------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--env", "leg_countin", "--num-tasks", "1"], "did you mean leg_counting,"),
        ([*ENV, "--num-tasks", "0"], "--num-tasks: must be > 0, got 0"),
        ([*ENV, "--tasks", "0,100"], "out of range"),
        ([*ENV, "--tasks", "1,1"], "task 1 twice"),
        ([*ENV, "--batch-size", "0"], "--batch-size: must be 1..256 (trajectories held in"),
    ],
)
def test_bad_arguments_fail_before_the_backend_is_built(
    tmp_path, capsys, no_backend, args, message
):
    try:
        status, _, stderr = _run(capsys, "evaluate", *args, "-o", tmp_path / "o.jsonl")
    except SystemExit as exit_:  # argparse's own check
        status, stderr = exit_.code, capsys.readouterr().err
    assert status == 2
    assert message in stderr
    assert "Traceback" not in stderr


def test_the_unknown_environment_error_is_short_and_says_how_to_list_them(
    tmp_path, capsys, no_backend
):
    status, _, stderr = _run(capsys, "evaluate", "--env", "no_such_env", "-o", tmp_path / "o")
    assert status == 2
    assert stderr.count("\n") == 1 and len(stderr) < 200
    assert "no_such_env" in stderr and "--list-envs" in stderr


def test_list_envs_prints_every_environment(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["evaluate", "--list-envs"])
    assert exit_.value.code == 0
    names = capsys.readouterr().out.split()
    assert "leg_counting" in names and "basic_arithmetic" in names and len(names) > 50


def test_a_resume_with_nothing_to_do_builds_no_backend(tmp_path, capsys, monkeypatch):
    out = tmp_path / "out.jsonl"
    args = [*ENV, "--num-tasks", "2", "--backend", "scripted", "--responses", EXAMPLE, "-o", out]
    status, _, stderr = _run(capsys, "evaluate", *args, *QUIET)
    assert status == 0, stderr
    before = out.read_bytes()

    def refuse(name, **kwargs):
        raise AssertionError("built a backend with nothing to do")

    monkeypatch.setattr(llenvs.inference, "get_backend", refuse)
    status, stdout, stderr = _run(capsys, "evaluate", *args, *QUIET)
    assert status == 0, stderr
    assert "nothing to run" in stdout and "success 50.0% (1/2)" in stdout
    assert out.read_bytes() == before


def test_num_tasks_defaults_to_ten_and_help_shows_defaults(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: 10" in text
    assert "(default: 8)" in text  # --batch-size
    responses = _responses(tmp_path / "r.jsonl", [f"Hm. <answer>{i}</answer>" for i in range(12)])
    out = tmp_path / "out.jsonl"
    status, _, stderr = _run(
        capsys, "evaluate", *ENV, "--backend", "scripted", "--responses", responses,
        "-o", out, *QUIET,
    )  # fmt: skip
    assert status == 0, stderr
    assert [t.task.task_index for t in read_traces(out)] == list(range(10))


def test_ctrl_c_keeps_the_finished_traces_and_says_how_to_resume(tmp_path, capsys, monkeypatch):
    generate, seen = ScriptedBackend.generate, set()

    def interrupted(self, requests):  # Ctrl-C as the second task starts
        seen.update(r.prompt.messages for r in requests)
        if len(seen) > 1:
            raise KeyboardInterrupt
        return generate(self, requests)

    monkeypatch.setattr(ScriptedBackend, "generate", interrupted)
    out = tmp_path / "out.jsonl"
    args = [
        "evaluate", *ENV, "--num-tasks", "3", "--batch-size", "1", "--backend", "scripted",
        "--responses", EXAMPLE, "-o", out, *QUIET,
    ]  # fmt: skip
    status, _, stderr = _run(capsys, *args)
    assert status == 130
    assert stderr.count("\n") == 1 and "Traceback" not in stderr
    assert "1 of 3 traces kept in" in stderr and str(out) in stderr
    assert "llenvs " + " ".join(str(a) for a in args) in stderr
    assert [t.task.task_index for t in read_traces(out)] == [0]


@pytest.mark.slow
def test_no_progress_silences_the_weight_loading_bar(tmp_path):
    done = subprocess.run(
        [
            str(LLENVS),
            "evaluate",
            *ENV,
            "--num-tasks",
            "1",
            "--max-tokens",
            "4",
            "-o",
            str(tmp_path / "o.jsonl"),
            *QUIET,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env={**os.environ, "COLUMNS": "120"},
    )
    assert done.returncode == 0, done.stderr
    assert "Loading weights" not in done.stderr
    assert "%|" not in done.stderr  # no progress bar of any kind


def test_intervene_refuses_an_empty_responses_file_too(tmp_path, capsys):
    out = tmp_path / "out.jsonl"
    args = [*ENV, "--num-tasks", "1", "--backend", "scripted", "--responses", EXAMPLE, "-o", out]
    assert _run(capsys, "evaluate", *args, *QUIET)[0] == 0
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    status, _, stderr = _run(
        capsys, "intervene", out, "--at", "1", "--resample", "--backend", "scripted",
        "--responses", empty, "--no-progress",
    )  # fmt: skip
    assert status == 2
    assert "empty.jsonl holds no response" in stderr
