"""``llenvs search PATH... QUERY``: JSON and text hits, the label queue, and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from llenvs.cli.main import main
from llenvs.traces import write_traces
from llenvs.workbench.search import read_label_queue
from tests.helpers import scored_trace

LLENVS = Path(sys.executable).with_name("llenvs")


@pytest.fixture
def folder(tmp_path) -> Path:
    write_traces(
        tmp_path / "runs.jsonl",
        [
            scored_trace("farm", ("Cows have 4 legs. ", 0.9), ("So 8.", 0.9)),
            scored_trace("farm", ("Hens have 2 legs. ", 0.1), ("So 4.", 0.1)),
        ],
    )
    return tmp_path


@pytest.mark.slow
def test_the_installed_command_prints_one_json_object_per_hit(folder):
    done = subprocess.run(
        [str(LLENVS), "search", str(folder), "LEGS", "--where", "prm < 0.5", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    hits = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(Path(h["file"]).name, h["trace"], h["step"], h["text"]) for h in hits] == [
        ("runs.jsonl", 2, 0, "Hens have 2 legs. ")
    ]
    assert (hits[0]["prm"], hits[0]["environment"], hits[0]["success"]) == (0.1, "farm", True)


def test_text_output_and_the_label_queue(folder, tmp_path, capsys):
    queue = tmp_path / "q.queue.jsonl"
    assert main(["search", str(folder / "runs.jsonl"), "so", "--queue", str(queue)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("runs.jsonl:1 step 1  «So» 8.")
    assert out[1] == "    environment farm · success true · reward 1 · prm 0.9"  # correctness 1
    assert out[-2:] == ["2 steps found", f"label queue: {queue}"]
    assert [(e.trace, e.step) for e in read_label_queue(queue)] == [(1, 1), (2, 1)]


def test_limit_says_there_may_be_more(folder, capsys):
    assert main(["search", str(folder), "legs", "--limit", "1"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 step found (the first; --limit 0: all)"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["(", "--regex"], "--regex '(': missing ), unterminated subpattern"),
        (["legs", "--where", "pmr < 1"], "unknown field 'pmr' (at 0); the fields: environment"),
        (["legs", "--limit", "-1"], "--limit must be >= 0, got -1"),
    ],
)
def test_bad_input_gets_one_message(folder, capsys, args, message):
    assert main(["search", str(folder), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_missing_path_is_named(tmp_path, capsys):
    assert main(["search", str(tmp_path / "gone.jsonl"), "legs"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"llenvs search: error: {tmp_path / 'gone.jsonl'} does not exist"
    )
