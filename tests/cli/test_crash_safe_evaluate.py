"""Issue 12 (item 2): ``llenvs evaluate`` killed with SIGKILL at any moment loses nothing.

The command runs as a subprocess with ``LLENVS_CRASH_AT=<moment>:<k>``, which makes it SIGKILL
itself the k-th time it reaches that moment of a write (``llenvs.traces.files._crash_point``): a
deterministic stand-in for a power cut or the OOM killer. Afterwards the results file loads;
rerunning the same command runs exactly the missing tasks (the traces that survived keep their
ids), and leaves one trace per task, in task order, every line whole, no temporary or lock file.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from llenvs.traces import TraceReader
from llenvs.traces.files import CRASH_AT

pytestmark = pytest.mark.slow

LLENVS = Path(sys.executable).with_name("llenvs")
ENV = ["--env", "leg_counting", "--adapter", "reasoning_gym", "--size", "100", "--seed", "42"]
TASKS = 6
ORDER = ",".join(str(i) for i in reversed(range(TASKS)))
"""The tasks run last first, so the final rewrite (task order) has work to do."""


def _responses(folder: Path) -> Path:
    path = folder / "responses.jsonl"
    rows = [
        {"task_index": i, "response": f"Count the legs. So {i}. <answer>{i}</answer>"}
        for i in range(TASKS)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _evaluate(folder: Path, *extra: str, crash: str | None = None, timeout: int = 120):
    env = {key: value for key, value in os.environ.items() if key != CRASH_AT}
    if crash is not None:
        env[CRASH_AT] = crash
    return subprocess.run(
        [str(LLENVS), "evaluate", *ENV, "-o", str(folder / "results.jsonl"), *extra],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _scripted(folder: Path, crash: str | None = None):
    args = ["--backend", "scripted", "--responses", str(_responses(folder))]
    args += ["--tasks", ORDER, "--batch-size", "2", "--no-progress", "--no-log"]
    return _evaluate(folder, *args, crash=crash)


def _survivors(path: Path) -> dict[int, str]:
    """The traces a killed run left that load (task -> trace id); the file must load."""
    if not path.exists():
        return {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {t.task.task_index: t.trace_id for t in TraceReader(path)}


def _check_finished(folder: Path, survivors: dict[int, str], tasks: int = TASKS) -> None:
    path = folder / "results.jsonl"
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b"" and all(json.loads(line) for line in lines[:-1])  # no torn line
    reader = TraceReader(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing is skipped any more
        traces = list(reader)
    assert [t.task.task_index for t in traces] == list(range(tasks))  # each task once, in order
    assert all(t.error is None for t in traces)
    kept = {t.task.task_index: t.trace_id for t in traces if t.task.task_index in survivors}
    assert kept == survivors  # the finished tasks were not run again
    leftovers = [p.name for p in folder.iterdir() if p.name.endswith((".tmp", ".lock"))]
    assert leftovers == []


@pytest.mark.parametrize(
    ("moment", "survive"),
    [
        ("append:after:2", 2),  # two traces appended (the lock still held)
        ("append:torn:3", 2),  # the third trace half written: a torn last line
        ("replace:before-rename:1", TASKS),  # the final rewrite's temporary file, not renamed
        ("replace:after-rename:1", TASKS),  # right after the final rename
    ],
)
def test_a_killed_evaluation_resumes_exactly_the_missing_tasks(tmp_path, moment, survive):
    killed = _scripted(tmp_path, crash=moment)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    left = (tmp_path / "results.jsonl").read_bytes()
    survivors = _survivors(tmp_path / "results.jsonl")
    assert len(survivors) == survive

    again = _scripted(tmp_path)
    assert again.returncode == 0, again.stderr
    if survive < TASKS:
        assert f"{survive} resumed" in again.stdout
    else:
        assert "nothing to run" in again.stdout
    _check_finished(tmp_path, survivors)
    torn = left.split(b"\n")[-1]
    if moment.startswith("append:torn"):
        assert torn  # half a line, no newline: set aside whole, not lost
        assert (tmp_path / "results.skipped.jsonl").read_bytes() == torn + b"\n"
    else:
        assert torn == b"" and not (tmp_path / "results.skipped.jsonl").exists()


def test_a_kill_between_setting_aside_and_rewriting_keeps_one_copy(tmp_path):
    # First a torn line (killed mid-append), then a run killed after it set the torn line aside
    # but before it rewrote the results file, then a run that finds nothing left to run.
    assert _scripted(tmp_path, crash="append:torn:3").returncode == -signal.SIGKILL
    torn = (tmp_path / "results.jsonl").read_bytes().split(b"\n")[-1]
    killed = _scripted(tmp_path, crash="aside:after:1")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    survivors = _survivors(tmp_path / "results.jsonl")
    assert len(survivors) == TASKS  # all appended, not yet rewritten

    again = _scripted(tmp_path)
    assert again.returncode == 0, again.stderr
    assert "nothing to run" in again.stdout
    _check_finished(tmp_path, survivors)
    assert (tmp_path / "results.skipped.jsonl").read_bytes() == torn + b"\n"  # once


def test_a_killed_evaluation_on_the_embedded_model_resumes(tmp_path):
    args = ["--num-tasks", "2", "--max-tokens", "24", "--batch-size", "1", "--no-progress"]
    args += ["--no-log"]
    killed = _evaluate(tmp_path, *args, crash="append:after:1", timeout=600)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    survivors = _survivors(tmp_path / "results.jsonl")
    assert sorted(survivors) == [0]

    again = _evaluate(tmp_path, *args, timeout=600)
    assert again.returncode == 0, again.stderr
    assert "1 resumed" in again.stdout
    _check_finished(tmp_path, survivors, tasks=2)
