"""PRM scores have one name everywhere, and a step file never turns them into human labels.

``llenvs evaluate`` (its ``PRMRewardFunction``) and ``llenvs import --prm`` both record a PRM's
score as ``rewards["prm"]`` and ``prm_scores["prm"]``; ``llenvs export prm800k`` writes human
labels (from the label store) as ``labels`` and model scores as ``prm_scores``, so importing the
file gives both back: the scores in the trace, the labels in the output's label store.
"""

from __future__ import annotations

import json

from llenvs.cli.main import main
from llenvs.traces import read_labels, read_traces

ENV = ["--env", "leg_counting", "--adapter", "reasoning_gym", "--size", "100", "--seed", "42"]
# Steps: right arithmetic (1.0), none to check (0.5), wrong arithmetic (0.0).
RESPONSE = "So 12 × 4 = 48. Count them again. Then 48 + 8 = 50. <answer>50</answer>"
SCORES = [1.0, 0.5, 0.0]


def _write_jsonl(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _run(*args):
    assert main([str(arg) for arg in args]) == 0


def _export_and_import(traces, folder, *labels):
    steps, back = folder / "steps.jsonl", folder / "back.jsonl"
    _run("export", "prm800k", traces, "-o", steps, *labels)
    [row] = [json.loads(line) for line in steps.read_text().splitlines()]
    _run("import", "prm800k", steps, "-o", back)
    [trace] = read_traces(back)
    return row, trace


def _assert_model_scores_only(trace):
    assert [s.prm_scores for s in trace.segments] == [{"prm": x} for x in SCORES]
    assert [s.rewards.get("prm") for s in trace.segments] == SCORES
    assert all("human_label" not in s.rewards for s in trace.segments)


def test_evaluate_and_import_name_the_prm_score_alike(tmp_path):
    evaluated = tmp_path / "evaluated.jsonl"
    _run("evaluate", *ENV, "--num-tasks", "1", "--segmenter", "sentence", "--prm", "arithmetic",
         "--backend", "scripted", "--responses", _write_jsonl(tmp_path / "r.jsonl", [RESPONSE]),
         "-o", evaluated, "--log-dir", tmp_path / "logs")  # fmt: skip
    chat = [{"role": "user", "content": "q"}, {"role": "assistant", "content": RESPONSE}]
    imported = tmp_path / "imported.jsonl"
    _run("import", "openai_chat", _write_jsonl(tmp_path / "chat.jsonl", [{"messages": chat}]),
         "-o", imported, "--segmenter", "sentence", "--prm", "arithmetic")  # fmt: skip
    [from_evaluate], [from_import] = read_traces(evaluated), read_traces(imported)
    _assert_model_scores_only(from_evaluate)
    _assert_model_scores_only(from_import)


def test_evaluate_export_import_keeps_a_model_score_under_its_name(tmp_path):
    traces = tmp_path / "t.jsonl"
    _run("evaluate", *ENV, "--num-tasks", "1", "--segmenter", "sentence", "--prm", "arithmetic",
         "--backend", "scripted", "--responses", _write_jsonl(tmp_path / "r.jsonl", [RESPONSE]),
         "-o", traces, "--log-dir", tmp_path / "logs")  # fmt: skip
    row, back = _export_and_import(traces, tmp_path)
    assert row["labels"] == [None, None, None]  # no human labelled these steps
    assert row["first_error_step"] is None
    assert row["prm_scores"] == [{"prm": x} for x in SCORES]
    _assert_model_scores_only(back)


def test_import_with_a_prm_export_import_keeps_human_labels_and_model_scores_apart(tmp_path):
    step_row = {"dataset": "prm800k", "id": "p-3", "problem": "q", "labels": [1, 0, -1],
                "steps": ["So 12 × 4 = 48.", "Count them again.", "Then 48 + 8 = 50."]}  # fmt: skip
    traces = tmp_path / "t.jsonl"
    _run("import", "prm800k", _write_jsonl(tmp_path / "s.jsonl", [step_row]), "-o", traces,
         "--prm", "arithmetic")  # fmt: skip
    [imported] = read_traces(traces)
    _assert_model_scores_only(imported)  # the labels went to the label store, not the trace
    stored = read_labels(traces).latest("prm800k")[imported.trace_id]
    assert {segment: label.label for segment, label in stored.items()} == {0: 1, 1: 0, 2: -1}
    row, back = _export_and_import(traces, tmp_path, "--labels", "prm800k")
    assert row["labels"] == [1, 0, -1] and row["first_error_step"] == 2
    assert row["labeller"] == "prm800k"
    assert row["prm_scores"] == [{"prm": x} for x in SCORES]
    assert [s.rewards for s in back.segments] == [{"prm": score} for score in SCORES]
    assert [s.prm_scores for s in back.segments] == [{"prm": x} for x in SCORES]
    again = read_labels(tmp_path / "back.jsonl").latest("prm800k")[back.trace_id]
    assert {segment: label.label for segment, label in again.items()} == {0: 1, 1: 0, 2: -1}
    assert back.trace_id == imported.trace_id


def test_evaluate_with_the_mc_prm_scores_steps_by_rollouts_of_its_own_backend(tmp_path):
    # The scripted backend answers each rollout from the same script (by prompt): continuations
    # of a right response reach the right answer from every step, those of a wrong one never.
    right, wrong = "Count them. So 100. <answer>100</answer>", "Count. So 9. <answer>9</answer>"
    for response, value in ((right, 1.0), (wrong, 0.0)):
        responses = _write_jsonl(tmp_path / f"r{value}.jsonl", [response])
        out = tmp_path / f"mc{value}.jsonl"
        _run(
            *("evaluate", *ENV, "--num-tasks", "1", "--segmenter", "sentence", "--prm", "mc"),
            *("--backend", "scripted", "--responses", responses, "-o", out, "--no-log"),
            "--no-progress",
        )
        [trace] = read_traces(out)
        assert trace.success is (value == 1.0)
        assert [s.prm_scores["prm"] for s in trace.segments] == [value] * len(trace.segments)
        assert len(trace.segments) >= 2
        assert trace.run.spec.prm is not None and trace.run.spec.prm.name == "mc"
