"""A ``llenvs experiment`` process killed (SIGKILL) mid-run: the same command finishes the
experiment with no branch made twice and none lost.

The run kills itself at a named moment (``LLENVS_CRASH_AT``, ``llenvs.traces.files``), as
``tests/cli/test_crash_safe_evaluate.py`` does: right after the fourth branch is appended to the
branches sidecar and synced, before its outcome is recorded in the experiment file, the moment
that a resume must neither lose nor make again. No poller races the run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from llenvs.core import SegmentedEnvironment
from llenvs.core.registry import environment_registry
from llenvs.evaluation.branching import replay_trace
from llenvs.experiments import read_experiment
from llenvs.traces import read_branches, write_traces
from llenvs.traces.files import CRASH_AT
from tests.conftest import REPO

pytestmark = pytest.mark.slow

PARENTS = 4
"""Parents, each branched after segments 0 and 1: 8 branches."""

KILLED_AT = 4
"""The branch after whose append (synced, its outcome not yet recorded) the run kills itself."""


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
    environ = {key: value for key, value in os.environ.items() if key != CRASH_AT}
    environ["PYTHONPATH"] = str(REPO)
    killed = subprocess.run(
        command,
        cwd=tmp_path,
        env={**environ, CRASH_AT: f"append:after:{KILLED_AT}"},
        capture_output=True,
        text=True,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    # the fourth branch is in the sidecar; its outcome is not in the experiment file
    assert len(read_experiment(out)[1]) == KILLED_AT - 1
    assert len(list(read_branches(parents))) == KILLED_AT
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
