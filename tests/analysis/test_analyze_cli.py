"""``llenvs analyze`` end to end on a sample trace: the coin backend, then the embedded model."""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from llenvs.analysis import analysis_path
from llenvs.cli import _analyze_command as analyze_command
from llenvs.cli.main import main
from llenvs.traces import find_trace
from tests.analysis.coin_backend import CoinBackend
from tests.analysis.conftest import REPO, TRUE_VALUES


@pytest.fixture
def coin_cli(monkeypatch, sample_copy):
    trace = find_trace(sample_copy, "1")
    backend = CoinBackend(trace, TRUE_VALUES, str(trace.task.expected_answer))
    monkeypatch.setattr(analyze_command, "recorded_backend", lambda *a, **k: backend)
    return sample_copy


def test_analyze_prints_the_plan_then_a_row_per_segment(coin_cli, capsys):
    options = "--budget 40 --width 0.3 --temperature 0.7 --forced-answer --tokens-per-second 100"
    argv = ["analyze", str(coin_cli), "--no-progress", *options.split()]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("planned: up to 40 rollouts at 10 boundaries, ~")
    assert out[0].endswith("at 100 tokens/s (given)")
    rows = [line.split()[0] for line in out[2:13]]
    assert rows == [*map(str, range(10)), "end"]
    assert "0.00 (exact)" in out[12]  # the trace's own verdict: it gave no answer
    assert out[2].split()[10:12] == ["98", "✗"] and out[5].split()[10:12] == ["100", "✓"]
    assert all(0 <= float(line.split()[8]) <= 1 for line in out[2:12])  # moved: a chance
    assert out[12].split()[4:6] == ["—", "✗"]
    assert out[13].startswith("40 rollouts (40 generated now, 0 read back) in")
    assert out[-1].startswith("most important steps: 9")  # v_9 ≈ 1, then the trace failed
    assert analysis_path(coin_cli).exists()
    assert main(argv) == 0
    again = capsys.readouterr().out.splitlines()
    assert again[0].startswith("planned: up to 0 rollouts at 10 boundaries (40 stored)")
    assert again[13].startswith("40 rollouts (0 generated now, 40 read back)")
    assert again[2:13] == out[2:13]


def test_analyze_calibrates_when_no_speed_is_given(coin_cli, capsys):
    assert main(["analyze", str(coin_cli), "--budget", "10", "--no-progress"]) == 0
    assert "(calibrated)" in capsys.readouterr().out.splitlines()[0]


def test_bad_options_are_one_line_errors(coin_cli, capsys):
    assert main(["analyze", str(coin_cli), "--width", "0", "--no-progress"]) == 2
    assert "width must be in (0, 1]" in capsys.readouterr().err
    assert main(["analyze", str(coin_cli), "--trace", "99", "--no-progress"]) == 2
    assert "no trace with id '99'" in capsys.readouterr().err


def test_analyze_on_the_embedded_model(monkeypatch, sample_copy, embedded_backend, capsys):
    monkeypatch.setattr(analyze_command, "recorded_backend", lambda *a, **k: embedded_backend)
    start = time.perf_counter()
    options = "--trace 2 --budget 8 --max-tokens 24 --temperature 1.0 --seed 7 --forced-answer"
    argv = ["analyze", str(sample_copy), "--no-progress", "--tokens-per-second", "15"]
    argv += options.split()
    assert main(argv) == 0
    seconds = time.perf_counter() - start
    out = capsys.readouterr().out
    print(f"embedded analyze, budget 8, 24 tokens: {seconds:.1f}s")
    lines = out.splitlines()
    assert lines[0].startswith("planned: up to 8 rollouts at 2 boundaries")
    assert [line.split()[0] for line in lines[2:5]] == ["0", "1", "end"]
    assert "8 rollouts (8 generated now, 0 read back)" in out


def test_a_short_trace_where_nothing_moved_says_so(monkeypatch, tmp_path, capsys):
    # products line 5 (3 segments), budget 8: 3, 3 and 2 rollouts, all failing, as the trace
    path = tmp_path / "products.jsonl"
    shutil.copy(REPO / "sample_traces" / "products-smollm2.jsonl", path)
    trace = find_trace(path, "5")
    backend = CoinBackend(trace, (0.0, 0.0, 0.0, 0.0), str(trace.task.expected_answer))
    monkeypatch.setattr(analyze_command, "recorded_backend", lambda *a, **k: backend)
    argv = ["analyze", str(path), "--trace", "5", "--budget", "8", "--tokens-per-second", "100"]
    assert main([*argv, "--no-progress"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[4] for line in out[2:5]] == ["3", "3", "2"]
    assert "(sure)" not in "\n".join(out)
    assert out[-1] == "no step moved the value detectably at this budget"


def test_the_moves_schedule_is_a_choice_of_the_command(coin_cli, capsys):
    argv = ["analyze", str(coin_cli), "--no-progress", "--schedule", "moves"]
    assert main([*argv, "--budget", "100", "--tokens-per-second", "100"]) == 0
    out = capsys.readouterr().out.splitlines()
    done = next(line for line in out if line.startswith("100 rollouts (100 generated now"))
    assert "rounds" in done
    counts = [int(line.split()[4]) for line in out[2:12]]  # seg, v_i, [low, high], n
    assert min(counts) >= 8  # its first round: 8 at every boundary
    assert max(counts) > 8  # then rounds to the steps that may have moved
    with pytest.raises(SystemExit):
        main(["analyze", str(coin_cli), "--schedule", "widest"])
    assert "invalid choice: 'widest'" in capsys.readouterr().err


def test_analyze_finds_where_a_failed_trace_went_wrong(coin_cli, capsys):
    """The sample trace climbs to 0.99 and then gives no answer: its last step is the drop."""
    argv = ["analyze", str(coin_cli), "--schedule", "first-drop", "--budget", "200"]
    assert main([*argv, "--no-progress", "--tokens-per-second", "100"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("first drop: step 9, the last: the value falls ")
    assert out[-1].endswith(" → 0.00 (640 tokens generated)")
    rollouts = int(out[-2].split()[0])
    assert rollouts == 80  # 40 at the start, 40 at the last sampled boundary: nothing between


def test_a_token_budget_is_never_spent_past(coin_cli, capsys):
    argv = ["analyze", str(coin_cli), "--token-budget", "300", "--schedule", "fixed"]
    assert main([*argv, "--no-progress", "--tokens-per-second", "100"]) == 0
    out = capsys.readouterr().out.splitlines()
    planned = out[0]
    assert planned.startswith("planned: up to ") and "rollouts at 10 boundaries" in planned
    done = next(line for line in out if " rollouts (" in line)
    spent = int(done.split("; ")[1].split(" tokens")[0].replace(",", ""))
    assert done.split("; ")[1] == f"{spent} tokens of a budget of 300"
    assert 300 - 96 < spent <= 300  # the rollouts' limit is the trace's own: 96 tokens
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["analyze", str(coin_cli), "--token-budget", "0", "--no-progress"])
    assert "--token-budget: must be 1..10000000000" in capsys.readouterr().err


@pytest.mark.slow  # the real command in a subprocess: what a terminal shows, warnings included
def test_a_file_without_a_trace_is_one_line_of_output(tmp_path):
    """Issue 50 item 3: 500 lines of random bytes were 500 warnings and an error; now the one
    error says how many lines were skipped and why the first was; an empty file says so."""
    rng = random.Random(50)
    rows = [rng.randbytes(80).replace(b"\n", b" ") + b"\n" for _ in range(500)]
    binary = tmp_path / "random.jsonl"
    binary.write_bytes(b"\x00" + b"".join(rows)[1:])  # line 1 holds a NUL: its reason is known
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    llenvs = Path(sys.executable).with_name("llenvs")
    for path, said in [
        (
            binary,
            "holds no readable trace: 500 line(s) could not be read and were skipped; the "
            "first: line 1: NUL bytes (0x00, first at column 1): binary data, not a line of "
            "JSON text",
        ),
        (empty, "is empty"),
    ]:
        run = subprocess.run(
            [str(llenvs), "analyze", str(path), "--budget", "0"], capture_output=True, text=True
        )
        assert run.returncode == 2
        assert run.stdout + run.stderr == f"llenvs analyze: error: {path} {said}\n"
