"""``llenvs intervene``: which trace ``--trace`` names, and bad input refused before a model loads.

Issue 17: the README's evaluate-then-intervene pair branched on another task (random tasks
without a seed), ``--trace N`` shifted after a torn line, and a bad ``--at`` waited for the
model to load.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from llenvs.cli import _intervene_command as intervene_command
from llenvs.cli.main import main
from llenvs.traces import find_trace, read_branches, read_traces
from tests.cli.test_commands import llenvs

pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.fixture
def results(tmp_path):
    """The README's scripted evaluation, without a seed (the default one), 4 tasks."""
    out = tmp_path / "x.jsonl"
    llenvs(
        "evaluate",
        "--env",
        "leg_counting",
        "--num-tasks",
        "4",
        "--backend",
        "scripted",
        "--responses",
        EXAMPLES / "leg_counting_responses.jsonl",
        "-o",
        out,
        "--no-progress",
        "--no-log",
        cwd=tmp_path,
    )
    return out


def test_evaluate_then_intervene_in_two_processes_branches_on_the_same_task(results, tmp_path):
    llenvs(
        "intervene",
        results,
        "--trace",
        "2",
        "--at",
        "1",
        "--force",
        "Test. ",
        "--backend",
        "scripted",
        "--responses",
        EXAMPLES / "leg_counting_fix.jsonl",
        "--no-progress",
        cwd=tmp_path,
    )
    parent = list(read_traces(results))[1]
    [child] = read_branches(results)
    assert child.parent.parent_id == parent.trace_id
    assert child.task.prompt == parent.task.prompt and child.task.task_index == 1
    assert child.task.adapter_kwargs["seed"] == 42  # the default seed, recorded


def test_trace_numbers_are_line_numbers_that_a_torn_line_does_not_shift(results, tmp_path):
    lines = results.read_text().splitlines(keepends=True)
    lines[1] = lines[1][: len(lines[1]) // 2] + "\n"  # line 2 torn
    results.write_text("".join(lines))
    with pytest.warns(UserWarning, match="line 2"):
        third = [t for t in read_traces(results)][1]
    found = find_trace(results, "3")
    assert found.trace_id == third.trace_id and found.task.task_index == 2
    with pytest.raises(ValueError, match=r"x\.jsonl, line 2: not JSON"):  # its own reason
        find_trace(results, "2")
    with pytest.raises(ValueError, match="line numbers start at 1"):
        find_trace(results, "0")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        # --at counts the segments kept: all 5 may be kept, except where nothing is left
        (
            ["--at", "999", "--force", "x"],
            r"--at 999: --at is how many .* has 5, so give --at 0\.\.5$",
        ),
        (
            ["--at", "99", "--resample"],
            r"has 5, so give --at 0\.\.4 \(not 5: .*nothing to resample",
        ),
        (["--at", "5", "--complete"], r"give --at 0\.\.4 \(not 5: .*nothing to complete"),
        (["--trace", "9", "--at", "1", "--resample"], "nor on line 9"),
        (["--at", "1", "--force", ""], "the forced segment needs a text"),
        (["--at", "1", "--feedback", "  "], "the feedback needs a text"),
        (["--at", "1", "--resample", "--samples", "17"], r"--samples: must be 1\.\.16 \(.*"),
        (["--at", "1", "--force", "x", "--samples", "2"], "--samples 2 is for --resample only"),
        (["--at", "1", "--complete", "--samples", "0"], r"--samples: must be 1\.\.16"),
    ],
)
def test_bad_input_is_refused_before_the_backend_is_built(
    results, monkeypatch, capsys, arguments, message
):
    def never(*args, **kwargs):
        raise AssertionError("the backend was built before the input was checked")

    monkeypatch.setattr(intervene_command, "recorded_backend", never)
    parent = next(read_traces(results))
    assert len(parent.segments) == 5 and parent.segments[-1].terminal
    try:
        code = main(["intervene", str(results), *arguments, "--no-progress"])
    except SystemExit as exit_:  # argparse's own check of a bound
        code = exit_.code
    assert code == 2
    assert re.search(message, capsys.readouterr().err.strip())
