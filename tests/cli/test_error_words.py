"""Errors in words: a missing file is named and said not to exist, for every command that reads
one (never ``[Errno 2] No such file or directory``); a file that is not the import format at all
is one line, not a warning per row; NUL bytes say what they look like."""

from __future__ import annotations

import pytest

from llenvs.cli.main import main
from llenvs.core import JsonLineError, parse_json_line

MISSING = "/no/such/file.jsonl"


@pytest.mark.parametrize(
    "args",
    [
        ["analyze", MISSING, "--trace", "1", "--budget", "0"],
        ["intervene", MISSING, "--at", "0", "--complete"],
        ["rerun", MISSING, "--trace", "1"],
        ["agreement", MISSING, "--labels", "x"],
        ["export", MISSING, "--format", "prm800k", "-o", "{out}"],
        ["import", "openai_chat", MISSING, "-o", "{out}"],
        ["import", "processbench", MISSING, "-o", "{out}"],
        ["import", "thought-anchors", MISSING, "-o", "{out}"],
        ["segment", "--spec", "sentence", "--file", MISSING],
        ["replay", "--env", "leg_counting", "--responses", MISSING, "-o", "{out}"],
        ["evaluate", "--env", "leg_counting", "--num-tasks", "1", "--backend", "scripted",
         "--responses", MISSING, "-o", "{out}", "--no-progress", "--no-log"],
    ],
    ids=lambda args: " ".join(args[:2]),
)  # fmt: skip
def test_a_missing_file_is_said_in_words(args, tmp_path, capsys):
    out = str(tmp_path / "out.jsonl")
    assert main([arg.replace("{out}", out) for arg in args]) == 2
    err = capsys.readouterr().err
    assert f"{MISSING} does not exist" in err, err
    assert "Errno" not in err and len(err.strip().splitlines()) == 1


def test_a_folder_given_for_a_file_is_said_in_words(tmp_path, capsys):
    assert main(["rerun", str(tmp_path), "--trace", "1"]) == 2
    assert f"{tmp_path} is a folder, not a file" in capsys.readouterr().err


def test_a_file_of_another_format_is_one_line_naming_the_format(tmp_path, capsys):
    binary = tmp_path / "program"
    binary.write_bytes(b"\x7fELF\x02\x01\x00\x00" + bytes(range(256)) * 40)
    out = tmp_path / "out.jsonl"
    assert main(["import", "processbench", str(binary), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err  # no warning per row
    assert err[0].startswith(f"llenvs import: error: {binary} is not a processbench file: none of")
    assert "binary data, not a line of JSON text" in err[0]
    assert not out.exists()


def test_nul_bytes_say_whether_they_are_a_zero_filled_block_or_binary_data():
    with pytest.raises(JsonLineError, match="a zero-filled block, such as a crash can leave"):
        parse_json_line(b"\x00" * 24 + b"\n")
    with pytest.raises(JsonLineError, match="binary data, not a line of JSON text"):
        parse_json_line(b'{"a": "\x00b"}\n')
