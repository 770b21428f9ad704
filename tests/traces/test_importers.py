"""Importers of outside formats, on the real external files, and the step-file exporter."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from llenvs.cli.main import main
from llenvs.core import Message
from llenvs.core.run_spec import ModelSpec, PRMSpec, RunSpec, SegmenterSpec
from llenvs.traces import (
    RunRecord,
    SegmentFlag,
    TraceImport,
    read_traces,
    step_file_row,
    write_step_file,
    write_traces,
)
from llenvs.traces.records import WrongFormatError
from tests.conftest import EXTERNAL, read_jsonl
from tests.traces.factories import make_trace


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
        assert trace.run.spec.segmenter == SegmenterSpec("steps")
        assert trace.run.spec.sampling is None  # an imported text: nothing was sampled
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
    assert traces[0].task.system_prompt == "Think." and traces[0].run.model_name == "m"


def test_step_files_keep_their_steps_and_labels_and_round_trip_through_the_exporter(tmp_path):
    rows = read_jsonl("step_traces.jsonl")
    imported = TraceImport("processbench", EXTERNAL / "step_traces.jsonl")
    traces = list(imported)
    assert len(traces) == len(rows) == 197
    by_trace: dict[str, dict[int, int]] = {}
    for label in imported.labels:  # the labels come apart from the traces, for the store
        by_trace.setdefault(label.trace_id, {})[label.segment] = label.label
    for trace, row in zip(traces, rows, strict=True):
        assert len(trace.segments) == len(row["steps"])
        assert all("human_label" not in s.rewards for s in trace.segments)
        back = step_file_row(trace, by_trace.get(trace.trace_id), row["dataset"])
        assert back["steps"] == row["steps"]
        assert back["labels"] == row["labels"]
        assert back["first_error_step"] == row["first_error_step"]
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
    imported = TraceImport("prm800k", path)
    [trace] = imported
    assert [s.text for s in trace.segments] == ["1 + 1 = 2\n", "# Answer\n\n2"]
    assert [s.rewards for s in trace.segments] == [{}, {}]  # no label in the trace
    assert [(x.trace_id, x.segment, x.label, x.labeller) for x in imported.labels] == [
        (trace.trace_id, 0, 1, "prm800k"),
        (trace.trace_id, 1, 1, "prm800k"),
    ]


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

    from llenvs.cli import _import_command as import_command

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


SAMPLE = Path(__file__).resolve().parents[2] / "sample_traces" / "products-smollm2.jsonl"


def _cli_like_trace(index, question, answer_text, correctness):
    """A trace as ``llenvs evaluate`` writes one: steps ending in newlines, two final rewards."""
    texts = ("1. The answer is 2.\n", "  So it is 2.\n\n", f"<answer>{answer_text}</answer>\n")
    trace = make_trace(texts)
    segments = tuple(
        dataclasses.replace(s, rewards={**s.rewards, **s.prm_scores}) for s in trace.segments
    )
    task = dataclasses.replace(trace.task, task_index=index, prompt=question)
    return dataclasses.replace(
        trace,
        task=task,
        messages=(Message("user", question), Message("assistant", trace.response)),
        segments=segments,
        run=RunRecord(
            RunSpec(
                model=ModelSpec.parse("scripted"),
                segmenter=SegmenterSpec("line"),
                prm=PRMSpec.parse("arithmetic"),
            )
        ),
        final_rewards={"correctness": correctness, "format": 1.0},
        success=correctness >= 1.0,
    )


def _without_what_a_step_file_drops(trace):
    segments = tuple(
        dataclasses.replace(
            s, token_ids=None, logprobs=None, flags=frozenset({SegmentFlag.REPLAYED})
        )
        for s in trace.segments
    )
    return dataclasses.replace(trace, segments=segments)


def test_llenvs_to_prm800k_to_llenvs_gives_the_traces_back(tmp_path, capsys):
    real = list(read_traces(SAMPLE))[:2]  # recorded by the real CLI (SmolLM2, answer opening)
    made = [
        _cli_like_trace(0, "What is 4 * 3?", "12", 0.2),
        _cli_like_trace(1, "What is 1 + 1?", "2", 1.0),
    ]
    write_traces(tmp_path / "cli.jsonl", real + made)
    steps, back = tmp_path / "x.jsonl", tmp_path / "y.jsonl"
    assert main(["export", "prm800k", str(tmp_path / "cli.jsonl"), "-o", str(steps)]) == 0
    note = capsys.readouterr().out
    assert "not in a step file, so not given back: token ids and logprobs (4 traces)" in note
    row = json.loads(steps.read_text().splitlines()[2])
    assert row["steps"][:2] == ["1. The answer is 2.", "  So it is 2."]  # a PRM800K row still
    assert main(["import", "prm800k", str(steps), "-o", str(back)]) == 0
    again = list(read_traces(back))
    assert len(again) == 4
    for before, after in zip(real + made, again, strict=True):
        assert after.response == before.response  # byte for byte
        assert [(s.start, s.end, s.text) for s in after.segments] == [
            (s.start, s.end, s.text) for s in before.segments
        ]
        assert after.task == before.task and after.task.identity == before.task.identity
        assert [s.rewards for s in after.segments] == [s.rewards for s in before.segments]
        assert after == _without_what_a_step_file_drops(before)
    assert again[2].task.task_index == 0 and again[3].task.task_index == 1
    assert again[2].final_rewards == {"correctness": 0.2, "format": 1.0}
    assert again[2].run.spec.prm == PRMSpec.parse("arithmetic") and again[2].success is False


def test_a_file_in_another_format_is_refused_naming_file_line_and_the_format(tmp_path, capsys):
    write_traces(tmp_path / "cli.jsonl", [_cli_like_trace(0, "What is 4 * 3?", "12", 1.0)])
    steps, out = tmp_path / "x.jsonl", tmp_path / "y.jsonl"
    assert main(["export", "prm800k", str(tmp_path / "cli.jsonl"), "-o", str(steps)]) == 0
    assert main(["import", "processbench", str(steps), "-o", str(out)]) == 2
    error = capsys.readouterr().err
    assert f"{steps}, line 1: a row of llenvs export prm800k" in error
    assert "import the file as prm800k" in error and not out.exists()
    record = {"question": {"problem": "1 + 1?"}, "label": {"steps": []}}
    (tmp_path / "raw.jsonl").write_text(json.dumps(record) + "\n")
    with pytest.raises(WrongFormatError, match=r"raw\.jsonl, line 1: a PRM800K record"):
        list(TraceImport("processbench", tmp_path / "raw.jsonl"))
    bench = {"id": "gsm8k-1", "problem": "q", "steps": ["a"], "label": -1}
    (tmp_path / "bench.jsonl").write_text(json.dumps(bench) + "\n")
    with pytest.raises(WrongFormatError, match=r"a ProcessBench row .* import the file as proc"):
        list(TraceImport("prm800k", tmp_path / "bench.jsonl"))
    with pytest.raises(WrongFormatError, match=r"cli\.jsonl, line 1: an llenvs trace"):
        list(TraceImport("openai_chat", tmp_path / "cli.jsonl"))
    chat = {"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]}
    (tmp_path / "chat.jsonl").write_text(json.dumps(chat) + "\n")
    imported = TraceImport("prm800k", tmp_path / "chat.jsonl")
    assert list(imported) == []
    assert "expected a PRM800K record" in imported.skipped[0].reason


def test_importing_traces_already_in_the_output_skips_them_with_a_count(tmp_path, capsys):
    source = tmp_path / "steps.jsonl"
    rows = read_jsonl("step_traces.jsonl")[:3]
    source.write_text("".join(json.dumps(r) + "\n" for r in rows[:2]))
    out = tmp_path / "out.jsonl"
    assert main(["import", "processbench", str(source), "-o", str(out)]) == 0
    assert main(["import", "processbench", str(source), "-o", str(out)]) == 0
    assert "imported nothing: 2 traces of" in capsys.readouterr().out
    assert len(out.read_text().splitlines()) == 2  # not doubled
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["import", "processbench", str(source), "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert "imported 1 trace" in said and "2 traces already there skipped" in said
    assert len({t.trace_id for t in read_traces(out)}) == 3
