"""Issue 17: nothing the user already has is lost, and bad bytes are named by file and line.

Commands append or refuse unless told ``--overwrite``; a failed command leaves every file
byte-identical; importing nothing is an error that writes nothing; resume keeps the lines it
cannot read; non-UTF-8 input names its file and line.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from llenvs.cli.main import main
from llenvs.traces import read_traces
from tests.cli.test_commands import llenvs

LLENVS = Path(sys.executable).with_name("llenvs")
ENV = ["--env", "leg_counting", "--adapter", "reasoning_gym", "--size", "100", "--seed", "42"]


def _chat(*answers: str) -> str:
    rows = [
        {"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": a}]}
        for a in answers
    ]
    return "".join(json.dumps(row) + "\n" for row in rows)


def _run(capsys, *args) -> tuple[int, str, str]:
    status = main([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def existing(tmp_path):
    """An output file the user already has: two imported traces."""
    source = tmp_path / "old_chat.jsonl"
    source.write_text(_chat("Old one.", "Old two."))
    out = tmp_path / "v.jsonl"
    assert main(["import", "openai_chat", str(source), "-o", str(out)]) == 0
    return out


# ---- import -----------------------------------------------------------------------------------


def test_import_appends_to_an_existing_output(tmp_path, existing, capsys):
    before = existing.read_bytes()
    source = tmp_path / "new.jsonl"
    source.write_text(_chat("New. Answer."))
    status, out, _ = _run(capsys, "import", "openai_chat", source, "-o", existing)
    assert status == 0 and "imported 1 trace" in out and "appended" in out
    assert existing.read_bytes().startswith(before)
    assert [t.response for t in read_traces(existing)] == ["Old one.", "Old two.", "New. Answer."]


def test_import_overwrite_replaces_the_output(tmp_path, existing, capsys):
    source = tmp_path / "new.jsonl"
    source.write_text(_chat("New. Answer."))
    status, _, _ = _run(capsys, "import", "openai_chat", source, "-o", existing, "--overwrite")
    assert status == 0
    assert [t.response for t in read_traces(existing)] == ["New. Answer."]
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_a_failed_import_leaves_the_output_byte_identical(tmp_path, existing, capsys):
    before = existing.read_bytes()
    source = tmp_path / "bad.jsonl"
    source.write_text("oops\n{}\n")
    for extra in ([], ["--overwrite"]):
        status, _, err = _run(capsys, "import", "openai_chat", source, "-o", existing, *extra)
        assert status == 2
        assert "is not an openai_chat file: none of its 2 rows reads as one" in err
        assert existing.read_bytes() == before


def test_importing_an_empty_file_is_an_error_that_writes_nothing(tmp_path, existing, capsys):
    before = existing.read_bytes()
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    for extra in ([], ["--overwrite"]):
        status, out, err = _run(capsys, "import", "openai_chat", empty, "-o", existing, *extra)
        assert status == 2, out
        assert str(empty) in err and "no trace" in err
        assert existing.read_bytes() == before
    fresh = tmp_path / "fresh.jsonl"
    assert _run(capsys, "import", "openai_chat", empty, "-o", fresh)[0] == 2
    assert not fresh.exists()


# ---- replay -----------------------------------------------------------------------------------


def _responses(path: Path, count: int) -> Path:
    rows = [
        {"task_index": i, "response": f"Count. So {i}. <answer>{i}</answer>"} for i in range(count)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_replay_appends_and_overwrite_replaces(tmp_path, capsys):
    out = tmp_path / "results.jsonl"
    four, one = _responses(tmp_path / "four.jsonl", 4), _responses(tmp_path / "one.jsonl", 1)
    replay = ["replay", *ENV, "--segmenter", "sentence", "--no-progress", "-o", out]
    assert _run(capsys, *replay, "--responses", four)[0] == 0
    before = out.read_bytes()
    status, printed, _ = _run(capsys, *replay, "--responses", one)
    assert status == 0 and "appended" in printed
    assert out.read_bytes().startswith(before)
    assert [t.task.task_index for t in read_traces(out)] == [0, 1, 2, 3, 0]
    assert _run(capsys, *replay, "--responses", one, "--overwrite")[0] == 0
    assert [t.task.task_index for t in read_traces(out)] == [0]


def test_a_failed_replay_leaves_the_output_byte_identical(tmp_path, capsys):
    out = tmp_path / "results.jsonl"
    replay = ["replay", *ENV, "--segmenter", "sentence", "--no-progress", "-o", out]
    assert _run(capsys, *replay, "--responses", _responses(tmp_path / "r.jsonl", 2))[0] == 0
    before = out.read_bytes()
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    for extra in ([], ["--overwrite"]):
        status, _, err = _run(capsys, *replay, "--responses", empty, *extra)
        assert status == 2 and str(empty) in err
        assert out.read_bytes() == before


# ---- export -----------------------------------------------------------------------------------


def test_export_refuses_to_replace_an_existing_file_without_overwrite(tmp_path, existing, capsys):
    steps = tmp_path / "steps.jsonl"
    steps.write_text("my own notes\n")
    status, _, err = _run(capsys, "export", "prm800k", existing, "-o", steps)
    assert status == 2 and str(steps) in err and "--overwrite" in err
    assert steps.read_text() == "my own notes\n"
    status, out, _ = _run(capsys, "export", "prm800k", existing, "-o", steps, "--overwrite")
    assert status == 0 and "exported 2 traces" in out
    assert [json.loads(line)["problem"] for line in steps.read_text().splitlines()] == ["q", "q"]


def test_exporting_no_trace_is_an_error_that_writes_nothing(tmp_path, capsys):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    steps = tmp_path / "steps.jsonl"
    status, _, err = _run(capsys, "export", "prm800k", empty, "-o", steps)
    assert status == 2 and str(empty) in err
    assert not steps.exists()


@pytest.mark.parametrize("command", ["import", "replay", "export"])
def test_help_says_what_happens_to_an_existing_file(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--overwrite" in text
    assert ("appended" in text) if command != "export" else ("refused" in text)


# ---- resume keeps unreadable lines ------------------------------------------------------------


@pytest.mark.slow
def test_resume_keeps_unreadable_lines_in_a_skipped_file(tmp_path):
    scripts = [f"Count. So {a}. <answer>{a}</answer>" for a in ("100", "140", "286")]
    responses = tmp_path / "r.jsonl"
    responses.write_text("".join(json.dumps(s) + "\n" for s in scripts))
    out = tmp_path / "results.jsonl"
    base = [*ENV, "--backend", "scripted", "--segmenter", "sentence", "--no-log", "-o", out]
    done = llenvs(
        "evaluate", *base, "--responses", responses, "--num-tasks", "2", cwd=tmp_path, check=False
    )
    assert done.returncode == 0, done.stderr
    good = out.read_bytes().splitlines(keepends=True)
    not_json = b"this is not JSON\n"
    torn = good[1][: len(good[1]) // 2]  # an interrupted append: no newline
    out.write_bytes(good[0] + not_json + good[1] + torn)

    rest = tmp_path / "rest.jsonl"
    rest.write_text(json.dumps({"task_index": 2, "response": scripts[2]}) + "\n")
    done = llenvs(
        "evaluate", *base, "--responses", rest, "--num-tasks", "3", cwd=tmp_path, check=False
    )
    assert done.returncode == 0, done.stderr
    kept = tmp_path / "results.skipped.jsonl"
    assert str(kept) in done.stderr or kept.name in done.stderr
    assert kept.read_bytes() == not_json + torn + b"\n"
    assert [t.task.task_index for t in read_traces(out)] == [0, 1, 2]

    # A second compaction finds nothing unreadable and keeps what the first set aside.
    done = llenvs(
        "evaluate", *base, "--responses", rest, "--num-tasks", "3", cwd=tmp_path, check=False
    )
    assert done.returncode == 0, done.stderr
    assert kept.read_bytes() == not_json + torn + b"\n"


# ---- non-UTF-8 input --------------------------------------------------------------------------


def test_non_utf8_responses_name_file_and_line(tmp_path, capsys):
    responses = tmp_path / "r.jsonl"
    responses.write_bytes(b'"fine"\n"caf\xff"\n')
    out = tmp_path / "o.jsonl"
    status, _, err = _run(capsys, "replay", *ENV, "--responses", responses, "-o", out)
    assert status == 2
    assert f"{responses}:2" in err and "not UTF-8" in err
    assert not out.exists()


def test_non_utf8_segment_file_names_file_and_line(tmp_path, capsys):
    text = tmp_path / "t.txt"
    text.write_bytes(b"First line.\nSecond \xff line.\n")
    status, _, err = _run(capsys, "segment", "--file", text)
    assert status == 2
    assert str(text) in err and "line 2" in err and "not UTF-8" in err


def test_import_skips_a_non_utf8_line_naming_file_and_line(tmp_path, capsys):
    source = tmp_path / "chat.jsonl"
    good = _chat("One.", "Two.").encode().splitlines(keepends=True)
    source.write_bytes(good[0] + b'{"messages": "\xff"}\n' + good[1])
    out = tmp_path / "o.jsonl"
    status, printed, err = _run(capsys, "import", "openai_chat", source, "-o", out)
    assert status == 0 and "imported 2 traces" in printed
    assert f"{source}, line 2: not UTF-8" in err
    assert [t.response for t in read_traces(out)] == ["One.", "Two."]
