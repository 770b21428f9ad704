"""The llenvs command line, run as a user runs it: the installed entry point, in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from llenvs.core import Force
from llenvs.traces import SegmentFlag, read_branches, read_traces

pytestmark = pytest.mark.slow

LLENVS = Path(sys.executable).with_name("llenvs")
ENV = ["--env", "leg_counting", "--adapter", "reasoning_gym", "--size", "100", "--seed", "42"]
# The answers of tasks 0..3 of leg_counting (size 100, seed 42).
ANSWERS = ["100", "140", "286", "187"]


def llenvs(*args, cwd, check=True):
    done = subprocess.run(
        [str(LLENVS), *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "120"},
    )
    if check and done.returncode != 0:
        raise AssertionError(f"llenvs {args} failed ({done.returncode}):\n{done.stderr}")
    return done


def _responses(path, texts):
    path.write_text("".join(json.dumps(t) + "\n" for t in texts))
    return path


def _script(answer):
    return f"Count the legs. Add them up. The total is {answer}. <answer>{answer}</answer>"


def test_evaluate_writes_traces_an_event_log_and_resumes(tmp_path):
    responses = _responses(tmp_path / "r.jsonl", [_script(a) for a in ANSWERS[:3]] + ["No."])
    out = tmp_path / "results.jsonl"
    args = [*ENV, "--backend", "scripted", "--responses", responses, "--segmenter", "sentence"]
    done = llenvs("evaluate", *args, "--num-tasks", "4", "-o", out, cwd=tmp_path)
    assert "success 75.0% (3/4), errors 0; 4 traces in" in done.stdout
    assert "leg_counting" in done.stderr  # the progress bar, on stderr
    traces = list(read_traces(out))
    assert [t.task.task_index for t in traces] == [0, 1, 2, 3]
    assert [t.success for t in traces] == [True, True, True, False]
    assert traces[0].segments[0].text == "Count the legs. "
    assert SegmentFlag.GENERATED in traces[0].segments[0].flags
    [log] = (tmp_path / "llenvs_logs").glob("*.jsonl")
    kinds = [json.loads(line)["event"] for line in log.read_text().splitlines()]
    assert kinds[0] == "start" and kinds[-1] == "end" and kinds.count("trajectory_end") == 4

    # Again with more tasks: the 4 finished ones are kept, only tasks 4 and 5 run, each with the
    # response that names its task.
    rows = [{"task_index": 4 + i, "response": f"Hm. <answer>{i + 1}</answer>"} for i in range(2)]
    more = _responses(tmp_path / "more.jsonl", rows)
    args[args.index(responses)] = more
    done = llenvs("evaluate", *args, "--num-tasks", "6", "-o", out, "--no-log", cwd=tmp_path)
    assert "errors 0, 4 resumed; 6 traces in" in done.stdout
    again = list(read_traces(out))
    assert [t.trace_id for t in again[:4]] == [t.trace_id for t in traces]
    assert [t.response for t in again[4:]] == ["Hm. <answer>1</answer>", "Hm. <answer>2</answer>"]


def test_intervene_forces_a_segment_and_appends_the_branch(tmp_path):
    responses = _responses(tmp_path / "r.jsonl", ["Count. So 8 legs. <answer>8</answer>"])
    out = tmp_path / "runs.jsonl"
    base = [*ENV, "--segmenter", "sentence"]
    llenvs("evaluate", *base, "--backend", "scripted", "--responses", responses,
           "--num-tasks", "1", "-o", out, "--no-log", cwd=tmp_path)  # fmt: skip
    [parent] = read_traces(out)
    assert not parent.success

    rest = _responses(tmp_path / "rest.jsonl", ["Count. So 100 legs. <answer>100</answer>"])
    done = llenvs("intervene", out, "--trace", parent.trace_id, "--at", "1",
                  "--force", "So 100 legs. ", "--responses", rest, cwd=tmp_path)  # fmt: skip
    assert "[1] 'So 100 legs. ' forced" in done.stdout
    assert "success: True" in done.stdout
    [child] = read_branches(out)
    assert child.parent.parent_id == parent.trace_id
    assert isinstance(child.parent.intervention, Force) and child.parent.segment_index == 1
    assert [s.text for s in child.segments] == ["Count. ", "So 100 legs. ", "<answer>100</answer>"]
    assert [sorted(f.value for f in s.flags) for s in child.segments] == [
        ["replayed"],
        ["forced"],
        ["generated"],
    ]
    assert child.run.model_name == "scripted" and child.success

    # Feedback after the branch's first segment, on the branch itself (found by its id).
    fix = _responses(tmp_path / "fix.jsonl", ["Recount: 100. <answer>100</answer>"])
    done = llenvs("intervene", out, "--trace", child.trace_id, "--at", "1",
                  "--feedback", "Check the deer.", "--responses", fix, cwd=tmp_path)  # fmt: skip
    grandchild = list(read_branches(out))[-1]
    assert grandchild.parent.parent_id == child.trace_id
    assert [m.role for m in grandchild.messages] == ["user", "assistant", "user", "assistant"]
    assert grandchild.messages[2].content == "Check the deer."
    assert SegmentFlag.FEEDBACK_AFTER in grandchild.segments[0].flags


def test_replay_scores_a_responses_file_with_a_prm(tmp_path):
    rows = [
        {"task_index": 1, "response": "2 + 2 = 5. So <answer>5</answer>"},
        {"task_index": 0, "response": "Total: 48 + 8 + 44 = 100. <answer>100</answer>"},
    ]
    responses = tmp_path / "r.jsonl"
    responses.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "replayed.jsonl"
    done = llenvs("replay", *ENV, "--segmenter", "sentence", "--prm", "arithmetic",
                  "--responses", responses, "-o", out, cwd=tmp_path)  # fmt: skip
    assert "replayed 2 responses" in done.stdout
    wrong, right = read_traces(out)
    assert wrong.task.task_index == 1 and right.task.task_index == 0
    assert wrong.segments[0].prm_scores["prm"] == 0.0  # 2 + 2 = 5 is wrong
    assert right.segments[0].prm_scores["prm"] == 1.0
    assert right.success and not wrong.success


def test_segment_prints_the_pieces(tmp_path):
    done = llenvs("segment", "--spec", "line:\\n\\n", "--exact", "--text", "a\n\nb", cwd=tmp_path)
    assert done.stdout.splitlines() == ["[0] 'a\\n\\n'", "[1] 'b'"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["segment", "--spec", "nope", "--text", "x"], "unknown segmenter 'nope'"),
        (["evaluate", "--env", "no_such_env", "-o", "o.jsonl"], "no_such_env"),
        (["evaluate", *ENV, "--backend", "nope", "-o", "o.jsonl"], "choose one of"),
        (["evaluate", *ENV, "--backend", "scripted", "-o", "o.jsonl"], "needs --responses"),
        (
            [
                "evaluate",
                *ENV,
                "--backend",
                "scripted",
                "--responses",
                "bad.jsonl",
                "-o",
                "o.jsonl",
            ],
            "bad.jsonl:2: not JSON",
        ),
        (
            [
                "evaluate",
                *ENV,
                "--tasks",
                "100",
                "--backend",
                "scripted",
                "--responses",
                "good.jsonl",
                "-o",
                "o.jsonl",
            ],
            "out of range",
        ),
        (["intervene", "missing.jsonl", "--at", "0", "--complete"], "missing.jsonl"),
        (["intervene", "good.jsonl", "--at", "0", "--complete"], "expected"),
    ],
)
def test_bad_input_gets_one_clear_line_and_no_traceback(tmp_path, args, message):
    (tmp_path / "bad.jsonl").write_text('"fine"\n{oops\n')
    (tmp_path / "good.jsonl").write_text('"fine"\n')
    done = llenvs(*args, cwd=tmp_path, check=False)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_export_writes_a_step_file_that_import_reads_back(tmp_path):
    rows = [{"task_index": 0, "response": "So 12 × 4 = 48. Then 48 + 8 = 50. <answer>50</answer>"}]
    responses = tmp_path / "r.jsonl"
    responses.write_text("".join(json.dumps(r) + "\n" for r in rows))
    traces = tmp_path / "t.jsonl"
    llenvs("replay", *ENV, "--segmenter", "sentence", "--prm", "arithmetic",
           "--responses", responses, "-o", traces, cwd=tmp_path)  # fmt: skip
    done = llenvs("export", "prm800k", traces, "-o", tmp_path / "steps.jsonl", cwd=tmp_path)
    assert "exported 1 trace to" in done.stdout
    [row] = [json.loads(line) for line in (tmp_path / "steps.jsonl").read_text().splitlines()]
    assert row["steps"] == ["So 12 × 4 = 48.", "Then 48 + 8 = 50. <answer>50</answer>"]
    assert row["labels"] == [None, None] and row["first_error_step"] is None  # no human labels
    assert row["prm_scores"] == [{"prm": 1.0}, {"prm": 0.0}]  # the model's, apart
    assert row["final_answer_correct"] is False
    llenvs("import", "prm800k", tmp_path / "steps.jsonl", "-o", tmp_path / "back.jsonl",
           cwd=tmp_path)  # fmt: skip
    [back] = read_traces(tmp_path / "back.jsonl")
    assert [s.text.strip() for s in back.segments] == row["steps"]


def test_help_and_the_import_export_summaries_name_inspect(tmp_path):
    listed = llenvs("--help", cwd=tmp_path).stdout
    lines = listed.splitlines()
    summaries = {
        line.split()[0]: " ".join([*line.split()[1:], after.strip()])  # wrapped on two lines
        for line, after in zip(lines, [*lines[1:], ""], strict=True)
        if line.startswith("    ") and line.split()[0] in ("import", "export")
    }
    assert "Inspect AI logs" in summaries["import"]
    assert "Inspect AI log" in summaries["export"]
    usage = llenvs("export", "--help", cwd=tmp_path).stdout.splitlines()[0]
    assert "[--format {prm800k,processbench,hf,inspect}]" in usage


def test_rerun_says_when_the_new_response_differs_only_in_whitespace(tmp_path):
    recorded = _responses(tmp_path / "r.jsonl", [_script(ANSWERS[0])])
    out = tmp_path / "t.jsonl"
    llenvs("evaluate", *ENV, "--num-tasks", "1", "--backend", "scripted", "--responses",
           recorded, "--segmenter", "sentence", "-o", out, "--no-progress", "--no-log",
           cwd=tmp_path)  # fmt: skip
    again = _responses(tmp_path / "again.jsonl", [_script(ANSWERS[0]).replace(". ", ".\n", 1)])
    done = llenvs("rerun", out, "--responses", again, "--no-progress", cwd=tmp_path, check=False)
    assert done.returncode == 1, done.stderr  # not identical
    assert "differs only in whitespace, from segment 0 on (character 15 of" in done.stdout
    assert "the words are the same" in done.stdout
