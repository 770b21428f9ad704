"""Issue 24 item 1: every number typed on the command line is checked against its real bound
(``llenvs.core._bounds``, the dataset's size) before anything is built, with a message naming it.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import llenvs.inference
from llenvs.cli.main import main

REPO = Path(__file__).resolve().parents[2]
TRACES = REPO / "sample_traces" / "leg_counting-smollm2.jsonl"
ENV = ["--env", "leg_counting", "--size", "100", "--seed", "42"]


@pytest.fixture
def no_backend(monkeypatch):
    """Fail the test if the command builds any backend."""

    def refuse(name, **kwargs):
        raise AssertionError(f"the backend {name!r} was built before the arguments were checked")

    monkeypatch.setattr(llenvs.inference, "get_backend", refuse)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["evaluate", *ENV, "--tasks", "0-99999999"],
            "--tasks 0-99999999: the dataset has 100 tasks (0-99); 99999999 is out of range",
        ),
        (["evaluate", *ENV, "--tasks", "0-4,3"], "--tasks 0-4,3: names task 3 twice"),
        (
            ["evaluate", *ENV, "--num-tasks", "99999999999"],
            "--num-tasks: the dataset has 100 tasks (0-99); 99999999999 is more than that",
        ),
        (
            ["evaluate", "--env", "leg_counting", "--size", "10000000000"],
            "--size: must be 1..1000000 (a run holds its task list",
        ),
        (["evaluate", *ENV, "--max-tokens", "10000000"], "--max-tokens: must be 1..131072 ("),
        (["evaluate", *ENV, "--sampling-seed", "-1"], "--sampling-seed: must be 0..4294967295"),
        (["evaluate", *ENV, "--batch-size", "100000"], "--batch-size: must be 1..256"),
        (["evaluate", *ENV, "--answer-tokens", "0"], "--answer-tokens: must be 1..131072"),
        (["analyze", str(TRACES), "--budget", "10000000"], "--budget: must be 0..100000 ("),
        (["analyze", str(TRACES), "--max-tokens", "0"], "--max-tokens: must be 1..131072"),
        (["analyze", str(TRACES), "--forced-tokens", "999999"], "--forced-tokens: must be 1.."),
        (["analyze", str(TRACES), "--seed", "-5"], "--seed: must be 0..4294967295"),
        (
            ["intervene", str(TRACES), "--at", "0", "--complete", "--max-tokens", "999999"],
            "--max-tokens: must be 1..131072",
        ),
        (
            ["intervene", str(TRACES), "--at", "0", "--resample", "--samples", "17"],
            "--samples: must be 1..16 (the resamples of one intervention",
        ),
    ],
)
def test_a_number_out_of_its_bound_is_refused_before_anything_is_built(
    tmp_path, capsys, no_backend, args, message
):
    if args[0] == "evaluate":
        args = [*args, "-o", str(tmp_path / "o.jsonl")]
    started = time.perf_counter()
    try:
        status = main(args)
        stderr = capsys.readouterr().err
    except SystemExit as exit_:  # argparse's own check
        status, stderr = exit_.code, capsys.readouterr().err
    assert time.perf_counter() - started < 10
    assert status == 2
    assert message in stderr, stderr
    assert "Traceback" not in stderr
    assert not (tmp_path / "o.jsonl").exists()
