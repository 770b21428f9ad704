"""The README's command-line example runs as written and prints what the README shows."""

from __future__ import annotations

import os
import re
import subprocess

from llenvs.traces import InterventionKind, read_branches, read_traces
from tests.conftest import REPO

FENCE = re.compile(r"```(\w*)\n(.*?)```", re.DOTALL)


def _blocks():
    return [(lang, body) for lang, body in FENCE.findall((REPO / "README.md").read_text())]


def _run_block(commands, folder):
    """Run README shell lines in ``folder``, beside links to the repository's examples and venv."""
    for name in ("examples", ".venv"):
        (folder / name).symlink_to(REPO / name)
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", commands],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "COLUMNS": "100"},
    )
    assert done.returncode == 0, done.stderr
    return done


def test_the_scripted_cli_example_prints_what_the_readme_shows(tmp_path):
    blocks = _blocks()
    [number] = [i for i, (lang, body) in enumerate(blocks) if "--backend scripted" in body]
    commands, shown = blocks[number][1], blocks[number + 1][1]
    done = _run_block(commands, tmp_path)
    expected = shown.strip().splitlines()
    printed = done.stdout.strip().splitlines()
    assert len(printed) == len(expected), done.stdout
    for line, want in zip(printed, expected, strict=True):
        pattern = ".*".join(re.escape(part) for part in want.split("…"))
        assert re.fullmatch(pattern, line), (line, want)
    assert (tmp_path / "runs" / "scripted.branches.jsonl").exists()


def test_the_embedded_model_example_runs_as_written(tmp_path):
    """The issue's "done when": evaluate 10 tasks on the embedded model, then intervene."""
    [commands] = [body for lang, body in _blocks() if "runs/smollm2.jsonl" in body]
    done = _run_block(commands, tmp_path)
    traces = list(read_traces(tmp_path / "runs" / "smollm2.jsonl"))
    assert [t.task.task_index for t in traces] == list(range(10))
    assert all(t.run.model == "transformers/SmolLM2-135M-Instruct" for t in traces)
    assert all(t.segments and t.segments[0].token_ids for t in traces)
    [branch] = read_branches(tmp_path / "runs" / "smollm2.jsonl")
    assert branch.parent.parent_id == traces[0].trace_id
    assert branch.parent.kind is InterventionKind.FEEDBACK
    assert "errors 0; 10 traces in runs/smollm2.jsonl" in done.stdout
    assert "leg_counting" in done.stderr  # the progress bar
