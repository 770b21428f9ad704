"""``llenvs diff A.jsonl:N B.jsonl:M [--json]``: the unified view, the JSON, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llenvs.cli.main import main
from llenvs.traces import SegmentRecord, TaskRecord, Trace, write_traces

SAMPLES = Path(__file__).parents[2] / "sample_traces"
PARENT = f"{SAMPLES / 'basic_arithmetic-smollm2.jsonl'}:1"
BRANCH = f"{SAMPLES / 'basic_arithmetic-smollm2.branches.jsonl'}:1"
"""A Force of segment 1 of the parent (``-5 * -6 = 30``)."""


def _trace(*texts: str) -> Trace:
    segments, start = [], 0
    for index, text in enumerate(texts):
        segments.append(SegmentRecord(index, start, start + len(text), text))
        start += len(text)
    return Trace(
        task=TaskRecord("e", "a", {}, 0, "q"), response="".join(texts), segments=tuple(segments)
    )


@pytest.fixture
def pair(tmp_path) -> Path:
    """A file of two traces: one kept step, one changed, one removed, one inserted."""
    path = tmp_path / "pair.jsonl"
    sheep, answer = "Sheep have 4 legs.\n", "<answer>8</answer>"
    write_traces(
        path,
        [
            _trace(sheep, "Mantises have 4 legs. ", "Cows moo. ", answer),
            _trace(sheep, "Mantises have 6 legs. ", answer, " Done."),
        ],
    )
    return path


def test_the_unified_view(pair, capsys):
    assert main(["diff", f"{pair}:1", f"{pair}:2", "--similarity", "lexical"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"a: {pair}:1 (trace ") and lines[0].endswith("4 segments)")
    assert lines[2] == "  0          1 segment, the same in both"
    assert lines[3] == "~    1    1  Mantises have [-4-]{+6+} legs.·  (text 0.95)"
    assert lines[4] == "-    2    ·  Cows moo.·"
    assert lines[5] == "     3    2  <answer>8</answer>"
    assert lines[6] == "+    ·    3   Done."
    assert lines[7] == (
        "where they part: a's segment 1 became b's segment 1, at character 33 of a (33 of b)"
    )
    assert lines[8].startswith("2 equal, 1 changed, 1 inserted, 1 removed; paired by text")
    assert lines[9] == "answers: a '8' (no verdict), b '8' (no verdict)"


def test_the_json(pair, capsys):
    assert main(["diff", f"{pair}:1", f"{pair}:2", "--json", "--similarity", "lexical"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert [(op["op"], op["a"], op["b"]) for op in found["ops"]] == [
        ("equal", 0, 0),
        ("changed", 1, 1),
        ("removed", 2, None),
        ("equal", 3, 2),
        ("inserted", None, 3),
    ]
    assert found["ops"][1]["edits"] == [
        {"op": "changed", "a_start": 14, "a_end": 15, "b_start": 14, "b_end": 15}
    ]
    assert found["first_difference"] == {
        "step": 1,
        "op": "changed",
        "a": 1,
        "b": 1,
        "a_character": 33,
        "b_character": 33,
    }
    assert found["method"] == "text"  # the removed step and the inserted one are apart: no
    # segments of both sides were left unpaired side by side, so no similarity was asked
    assert found["a"]["answer"] == "8" and found["same_task"] is True


def test_a_branch_against_its_parent(capsys):
    assert main(["diff", PARENT, BRANCH, "--similarity", "lexical"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[2] == "  0          1 segment, the same in both"
    assert lines[3].startswith("~    1    1  -5 * -6 = [---]30")
    assert "[prm 0 → 1 · reward 0 → 1]" in lines[3]
    assert "where they part: a's segment 1 became b's segment 1" in out
    assert "answers: a '-30' (failed), b '30' (succeeded)" in out


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("missing.jsonl:1", "missing.jsonl does not exist"),
        (f"{SAMPLES / 'products-smollm2.jsonl'}:99", "no trace with id '99' nor on line 99"),
        (str(SAMPLES / "products-smollm2.jsonl"), "name a trace as FILE:N (N: its line"),
        (f"{SAMPLES / 'products-smollm2.jsonl'}:", "name a trace as FILE:N"),
    ],
    ids=["missing file", "out of range", "no line", "empty line"],
)
def test_bad_input_gets_one_clear_line(argument, message, capsys):
    assert main(["diff", argument, PARENT]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("llenvs diff: error: ")
    assert message in err


def test_a_label_stored_beside_the_file_shows_on_its_step_and_in_the_json(tmp_path, capsys):
    from llenvs.traces import StepLabel, append_labels, write_traces
    from tests.helpers import leg_counting_trace

    a = leg_counting_trace("Sheep have 4 legs. So 4 legs. Cows moo. So 8.")
    b = leg_counting_trace("Sheep have 4 legs. So 6 legs. Birds fly. So 8.")
    path = tmp_path / "t.jsonl"
    write_traces(path, [a, b])
    append_labels(path, [StepLabel(a.trace_id, 2, -1, "ada")])
    args = ["diff", f"{path}:1", f"{path}:2", "--similarity", "lexical"]
    assert main(args) == 0
    [removed] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("-")]
    assert "Cows moo." in removed and removed.endswith("[a label -1]")
    assert main([*args, "--json"]) == 0
    stored = json.loads(capsys.readouterr().out)["stored"]
    assert stored["a"][2] == {"label": -1, "value": None} and stored["b"] == []
