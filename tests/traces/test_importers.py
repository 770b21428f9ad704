"""Importers of outside formats, on the real external files, and the step-file exporter."""

from __future__ import annotations

import json

import pytest

from llenvs.traces import (
    TraceImport,
    read_traces,
    step_file_row,
    write_step_file,
    write_traces,
)
from tests.conftest import EXTERNAL, read_jsonl


def test_reasoning_gym_log_rows_become_traces_with_logged_scores():
    imported = TraceImport("reasoning_gym", EXTERNAL / "real_responses.jsonl")
    traces = list(imported)
    rows = read_jsonl("real_responses.jsonl")
    assert imported.skipped == []
    assert len(traces) == len(rows) == 20
    for trace, row in zip(traces, rows, strict=True):
        assert trace.response == row["response"]
        assert "".join(s.text for s in trace.segments) == row["response"]
        assert trace.final_rewards["correctness"] == float(row["score_as_logged"])
        assert trace.task.expected_answer == row["expected_answer"]
        assert trace.run.segmenter == "steps"
    legs = [t for t in traces if t.task.environment == "leg_counting"]
    assert len(legs) == 12 and sum(t.success for t in legs) == 6
    assert traces[0].task.task_index == 31  # results[31].completions[1]


def test_reasoning_gym_result_file_gives_one_trace_per_completion(tmp_path):
    document = {
        "dataset_name": "leg_counting",
        "model": "m",
        "system_prompt": "Think.",
        "results": [
            {
                "question": "How many legs has 1 dog?",
                "answer": "4",
                "completions": [
                    {"full_model_response": "A dog has 4. <answer>4</answer>", "score": 1.0},
                    {"full_model_response": "3 legs. <answer>3</answer>", "score": 0.0},
                ],
            }
        ],
    }
    path = tmp_path / "leg_counting.json"
    path.write_text(json.dumps(document, indent=2))
    traces = list(TraceImport("reasoning_gym", path))
    assert [t.success for t in traces] == [True, False]
    assert traces[0].task.system_prompt == "Think." and traces[0].run.model == "m"


def test_step_files_keep_their_steps_and_labels_and_round_trip_through_the_exporter(tmp_path):
    rows = read_jsonl("step_traces.jsonl")
    traces = list(TraceImport("processbench", EXTERNAL / "step_traces.jsonl"))
    assert len(traces) == len(rows) == 197
    for trace, row in zip(traces, rows, strict=True):
        assert len(trace.segments) == len(row["steps"])
        back = step_file_row(trace)
        assert back["steps"] == row["steps"]
        assert back["labels"] == row["labels"]
        assert back["problem"] == row["problem"]
    out = tmp_path / "steps.jsonl"
    assert write_step_file(out, traces) == 197
    again = list(TraceImport("prm800k", out))
    assert [t.response for t in again] == [t.response for t in traces]


def test_a_raw_prm800k_record_uses_each_steps_chosen_completion(tmp_path):
    record = {
        "labeler": "x",
        "question": {"problem": "1 + 1?", "ground_truth_answer": "2"},
        "label": {
            "steps": [
                {
                    "completions": [
                        {"text": "1 + 1 = 3", "rating": -1},
                        {"text": "1 + 1 = 2", "rating": 1},
                    ],
                    "chosen_completion": 1,
                },
                {
                    "completions": [{"text": "# Answer\n\n2", "rating": 1}],
                    "chosen_completion": None,
                },
            ],
            "finish_reason": "solution",
        },
    }
    path = tmp_path / "prm800k.jsonl"
    path.write_text(json.dumps(record) + "\n")
    [trace] = TraceImport("prm800k", path)
    assert [s.text for s in trace.segments] == ["1 + 1 = 2\n", "# Answer\n\n2"]
    assert [s.rewards["human_label"] for s in trace.segments] == [1.0, 1.0]


def test_openai_chat_shapes_and_bad_rows_are_skipped_by_line(tmp_path):
    lines = [
        {
            "messages": [
                {"role": "system", "content": "S"},
                {"role": "user", "content": "Q1"},
                {"role": "assistant", "content": "First. Second."},
            ]
        },
        {
            "object": "chat.completion",
            "model": "gpt",
            "request": {"messages": [{"role": "user", "content": "Q2"}]},
            "choices": [
                {"message": {"role": "assistant", "content": "A."}},
                {"message": {"role": "assistant", "content": "B."}},
            ],
        },
        {
            "custom_id": "c",
            "response": {
                "body": {
                    "model": "gpt",
                    "choices": [{"message": {"role": "assistant", "content": "Batch."}}],
                }
            },
        },
        {"neither": True},
    ]
    path = tmp_path / "chat.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\nnot json\n")
    imported = TraceImport("openai_chat", path)
    traces = list(imported)
    assert [t.task.prompt for t in traces] == ["Q1", "Q2", "Q2", ""]
    assert traces[0].task.system_prompt == "S"
    assert [s.line for s in imported.skipped] == [4, 5]
    assert "line 4" in str(imported.skipped[0])


def test_imported_traces_write_and_read_back(tmp_path):
    traces = list(TraceImport("reasoning_gym", EXTERNAL / "real_responses.jsonl"))
    path = tmp_path / "out.jsonl"
    write_traces(path, traces)
    assert list(read_traces(path)) == traces


def test_import_command_writes_traces_and_lists_skipped_rows(tmp_path, capsys):
    import argparse

    from llenvs.cli import import_command

    parser = argparse.ArgumentParser(prog="llenvs")
    import_command.add_parser(parser.add_subparsers())
    source = tmp_path / "in.jsonl"
    source.write_text((EXTERNAL / "step_traces.jsonl").read_text() + "{broken\n")
    out = tmp_path / "out.jsonl"
    args = parser.parse_args(
        ["import", "processbench", str(source), "-o", str(out), "--prm", "arithmetic"]
    )
    assert args.func(args) == 0
    captured = capsys.readouterr()
    assert "imported 197 traces" in captured.out and "1 row skipped" in captured.out
    assert "line 198" in captured.err
    first = next(read_traces(out))
    assert set(first.segments[0].prm_scores) == {"prm"}  # the name evaluate gives it
    with pytest.raises(SystemExit):
        parser.parse_args(["import", "csv", str(source), "-o", str(out)])
