"""``llenvs experiment``: the JSON summary, resuming, recipes by name or file, clear refusals."""

from __future__ import annotations

import json
import shutil

from llenvs.cli.main import main
from llenvs.experiments import READY_RECIPES, read_experiment
from tests.experiments.scripted_parents import parents_file
from tests.experiments.test_plan import NUMBER_FORMAT
from tests.experiments.test_run_experiment import OUTPUTS


def _responses(folder, outputs):
    path = folder / "responses.jsonl"
    path.write_text("".join(json.dumps(o) + "\n" for o in outputs), encoding="utf-8")
    return str(path)


def test_json_summary_is_the_last_line_and_a_second_run_resumes(tmp_path, capsys):
    parents = parents_file(tmp_path)
    words = [
        "experiment",
        str(parents),
        "--at",
        "0,0.5",
        "--feedback",
        "Check.",
        "--backend",
        "scripted",
        "--responses",
        _responses(tmp_path, OUTPUTS),
        "-o",
        str(tmp_path / "x"),
        "--in-flight",
        "1",
        "--no-progress",
        "--json",
    ]
    assert main(words) == 0
    out = capsys.readouterr().out.splitlines()
    assert json.loads(out[-1]) == {
        "parents": 4,
        "branches": 8,
        "success_before": 0.5,
        "success_after": 0.625,
        "flips": {"fail_to_success": 2, "success_to_fail": 1},
        "answer_changed": 4,
    }
    assert any(line.startswith("paired difference +0.125") for line in out)
    assert any("McNemar p = 1" in line for line in out)
    # the same command again: all 8 recorded before, nothing generated (no responses needed)
    (tmp_path / "responses.jsonl").write_text("", encoding="utf-8")
    assert main(words) == 0
    again = capsys.readouterr().out.splitlines()
    assert "8 branches planned, 8 recorded before" in again[0]
    assert json.loads(again[-1])["branches"] == 8


def test_a_recipe_that_selects_nothing_exits_2_with_the_reason(tmp_path, capsys):
    parents = parents_file(tmp_path)
    status = main(
        [
            "experiment",
            str(parents),
            "--at",
            "regex:zebra",
            "--complete",
            "--backend",
            "scripted",
            "--responses",
            _responses(tmp_path, []),
            "-o",
            str(tmp_path / "x"),
        ]
    )
    assert status == 2
    err = capsys.readouterr().err
    assert "selects no segment: the regex 'zebra' never matched" in err
    assert not (tmp_path / "x.experiment.jsonl").exists()
    status = main(
        [
            "experiment",
            str(parents),
            "--recipe",
            "adding-mistakes",
            "--at",
            "0",
            "--backend",
            "scripted",
            "--responses",
            _responses(tmp_path, []),
            "-o",
            str(tmp_path / "x"),
        ]
    )
    assert status == 2
    assert "template could not be filled" in capsys.readouterr().err


def test_recipes_by_name_and_by_file_with_options_over_them(tmp_path, capsys):
    parents = parents_file(tmp_path)
    recipe = tmp_path / "hint.toml"
    recipe.write_text(READY_RECIPES["correct-hint"].to_toml(), encoding="utf-8")
    responses = _responses(tmp_path, [f"<answer>{a}</answer>" for a in ("100", "140")])
    status = main(
        [
            "experiment",
            str(parents),
            "--recipe",
            str(recipe),
            "--at",
            "0.5",
            "--parents",
            "failed",
            "--max-tokens",
            "32",
            "--backend",
            "scripted",
            "--responses",
            responses,
            "-o",
            str(tmp_path / "hint"),
            "--no-progress",
            "--json",
        ]
    )
    assert status == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["flips"]["fail_to_success"] == 2
    header, outcomes = read_experiment(tmp_path / "hint.experiment.jsonl")
    assert header.recipe.name == "correct-hint"
    assert header.recipe.how.max_tokens == 32
    assert header.recipe.parents.outcome.value == "failed"
    assert {o.task_index for o in outcomes} == {0, 1}


def test_another_recipe_is_refused_unless_overwrite(tmp_path, capsys):
    parents = parents_file(tmp_path)
    common = ["--backend", "scripted", "-o", str(tmp_path / "x"), "--no-progress"]
    one = _responses(tmp_path, ["<answer>8</answer>"] * 4)
    assert (
        main(["experiment", str(parents), "--at", "0", "--complete", "--responses", one, *common])
        == 0
    )
    before = (tmp_path / "x.experiment.jsonl").read_bytes()
    words = ["experiment", str(parents), "--at", "1", "--complete", "--responses", one, *common]
    assert main(words) == 2
    assert "holds another experiment" in capsys.readouterr().err
    assert (tmp_path / "x.experiment.jsonl").read_bytes() == before
    assert main([*words, "--overwrite"]) == 0
    header, outcomes = read_experiment(tmp_path / "x.experiment.jsonl")
    assert header.recipe.where.index == 1 and len(outcomes) == 4


def test_positions_skipped_at_planning_are_said_under_the_planned_line(tmp_path, capsys):
    parents = tmp_path / "nf.jsonl"
    shutil.copy(NUMBER_FORMAT, parents)
    words = ["experiment", str(parents), "--at", "every", "--feedback", "Check."]
    words += [
        "--backend",
        "scripted",
        "--responses",
        _responses(tmp_path, ["<answer>1</answer>"] * 41),
    ]
    words += ["-o", str(tmp_path / "x"), "--no-progress", "--json"]
    assert main(words) == 0
    out = capsys.readouterr().out.splitlines()
    assert "41 branches planned, 0 recorded before" in out[0]
    assert out[1].startswith("4 positions skipped: empty segment (in the kept prefix")
    assert json.loads(out[-1])["branches"] == 41
