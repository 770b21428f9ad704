"""A ``llenvs experiment`` process killed (SIGKILL) mid-run: the same command finishes the
experiment with no branch made twice and none lost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from llenvs.core import SegmentedEnvironment
from llenvs.core.registry import environment_registry
from llenvs.evaluation.replay_trace import replay_trace
from llenvs.experiments import read_experiment
from llenvs.traces import read_branches, write_traces
from tests.conftest import REPO

pytestmark = pytest.mark.slow

PARENTS = 40
"""Parents, each branched after segments 0 and 1: 80 branches, enough to be killed amid."""


def test_a_killed_run_resumes_with_no_branch_made_twice_and_none_lost(tmp_path):
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=100, seed=42)
    env = SegmentedEnvironment(base, "sentence")
    text = "Count. Think. So 8. <answer>8</answer>"
    parents = tmp_path / "runs.jsonl"
    write_traces(
        parents, [replay_trace(env, task, text, model="scripted") for task in range(PARENTS)]
    )
    responses = tmp_path / "responses.jsonl"
    responses.write_text((json.dumps("<answer>8</answer>") + "\n") * 2 * PARENTS, encoding="utf-8")
    out = tmp_path / "x.experiment.jsonl"
    command = [
        sys.executable,
        "-m",
        "llenvs.cli.main",
        "experiment",
        str(parents),
        "--at",
        "0,0.5",
        "--feedback",
        "Sure?",
        "--backend",
        "scripted",
        "--responses",
        str(responses),
        "-o",
        str(out),
        "--in-flight",
        "1",
        "--no-progress",
        "--json",
    ]
    environ = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        command, cwd=tmp_path, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    while process.poll() is None and (not out.exists() or len(out.read_bytes().splitlines()) < 4):
        time.sleep(0.005)
    process.send_signal(signal.SIGKILL)
    process.wait()
    killed_with = len(read_experiment(out)[1])
    assert process.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    assert 3 <= killed_with < 2 * PARENTS
    finished = subprocess.run(
        command, cwd=tmp_path, env=environ, capture_output=True, text=True, check=True
    )
    assert json.loads(finished.stdout.splitlines()[-1])["branches"] == 2 * PARENTS
    _, outcomes = read_experiment(out)
    keys = [o.key for o in outcomes]
    assert len(keys) == len(set(keys)) == 2 * PARENTS  # none lost
    branches = list(read_branches(parents))
    assert len(branches) == 2 * PARENTS  # none made twice
    assert {b.trace_id for b in branches} == {o.branch_id for o in outcomes}
