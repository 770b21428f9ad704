"""The README's command-line example runs as written and prints what the README shows."""

from __future__ import annotations

import os
import re
import subprocess

from tests.conftest import REPO

FENCE = re.compile(r"```(\w*)\n(.*?)```", re.DOTALL)


def _blocks():
    return [(lang, body) for lang, body in FENCE.findall((REPO / "README.md").read_text())]


def test_the_scripted_cli_example_prints_what_the_readme_shows(tmp_path):
    blocks = _blocks()
    [number] = [i for i, (lang, body) in enumerate(blocks) if "--backend scripted" in body]
    commands, shown = blocks[number][1], blocks[number + 1][1]
    for name in ("examples", ".venv"):
        (tmp_path / name).symlink_to(REPO / name)
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", commands],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "100"},
    )
    assert done.returncode == 0, done.stderr
    expected = shown.strip().splitlines()
    printed = done.stdout.strip().splitlines()
    assert len(printed) == len(expected), done.stdout
    for line, want in zip(printed, expected, strict=True):
        pattern = ".*".join(re.escape(part) for part in want.split("…"))
        assert re.fullmatch(pattern, line), (line, want)
    assert (tmp_path / "runs" / "scripted.branches.jsonl").exists()
