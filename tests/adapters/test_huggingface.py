"""The huggingface adapter on local files (no network here), columns, splits and scoring."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llenvs.adapters.huggingface import HuggingFaceEnvironment, answers_match
from llenvs.core import Action
from llenvs.core.registry import environment_registry

ROWS = [
    {"problem": "What is 1/2 + 0?", "answer": "\\frac{1}{2}", "id": 1},
    {"problem": "Capital of France?", "answer": "Paris", "id": 2},
    {"problem": "6 times 7?", "answer": "42", "id": 3},
]


def _jsonl(tmp_path: Path, rows: list[dict[str, object]], name: str = "tasks.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_local_jsonl_through_the_registry(tmp_path: Path) -> None:
    env = environment_registry.get(name=str(_jsonl(tmp_path, ROWS)), adapter="huggingface")
    assert len(env) == 3
    assert env.spec.adapter == "huggingface"
    state, info = env.reset(options={"task_index": 0})
    assert info == {"task_index": 0}
    assert state.observation.prompt.startswith("What is 1/2 + 0?")
    rewards = env.step(state, Action("So it is <answer>0.5</answer>")).rewards.as_dict()
    assert rewards == {"correctness": 1.0, "format": 1.0}
    state, _ = env.reset(options={"task_index": 1})
    assert env.step(state, Action("<answer> paris </answer>")).rewards.as_dict()["correctness"] == 1
    state, _ = env.reset(options={"task_index": 2})
    assert env.step(state, Action("<answer>41</answer>")).rewards.as_dict()["correctness"] == 0


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".json"])
def test_other_local_formats(tmp_path: Path, suffix: str) -> None:
    import datasets

    path = tmp_path / f"tasks{suffix}"
    table = datasets.Dataset.from_list(ROWS)
    {".csv": table.to_csv, ".parquet": table.to_parquet, ".json": table.to_json}[suffix](str(path))
    env = HuggingFaceEnvironment(str(path))
    assert len(env) == 3 and env.task(2).answer == "42"


def test_columns_defaults_choice_and_errors(tmp_path: Path) -> None:
    rows = [{"question": "2+2?", "solution": "4", "target": "four"}]
    path = _jsonl(tmp_path, rows)
    env = HuggingFaceEnvironment(str(path))
    assert (env.question_column, env.answer_column) == ("question", "solution")
    assert HuggingFaceEnvironment(str(path), answer_column="target").task(0).answer == "four"
    with pytest.raises(ValueError, match=r"no answer column 'nope': the columns are \["):
        HuggingFaceEnvironment(str(path), answer_column="nope")
    bare = _jsonl(tmp_path, [{"text": "x"}], "bare.jsonl")
    with pytest.raises(ValueError, match=r"no question column found .*\['text'\]"):
        HuggingFaceEnvironment(str(bare))
    with pytest.raises(ValueError, match="no split 'test'"):
        HuggingFaceEnvironment(str(path), split="test")
    assert len(HuggingFaceEnvironment(str(_jsonl(tmp_path, ROWS, "all.jsonl")), size=2)) == 2


def test_missing_files_and_unknown_formats(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no local dataset file"):
        HuggingFaceEnvironment(str(tmp_path / "absent.jsonl"))
    other = tmp_path / "tasks.txt"
    other.write_text("hi")
    with pytest.raises(ValueError, match=r"\.jsonl, \.json, \.csv or \.parquet"):
        HuggingFaceEnvironment(str(other))


def test_hub_name_offline_without_cache_says_how_to_load_local_files(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import datasets

    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "cache"))
    with pytest.raises(ValueError, match="load a local file instead") as caught:
        HuggingFaceEnvironment("nobody-here/no-such-dataset-llenvs")
    assert "adapter='huggingface'" in str(caught.value)


@pytest.mark.parametrize(
    ("answer", "expected", "same"),
    [
        ("0.5", "\\frac{1}{2}", True),
        ("42", "42", True),
        ("$42$", "42", True),
        ("x = 3", "3", True),
        ("Paris", "paris", True),
        ("43", "42", False),
        ("London", "Paris", False),
    ],
)
def test_answers_match(answer: str, expected: str, same: bool) -> None:
    assert answers_match(answer, expected) is same


def test_passes_check_env_alone_and_segmented(tmp_path: Path) -> None:
    from llenvs.core import SegmentedEnvironment, check_env

    env = HuggingFaceEnvironment(str(_jsonl(tmp_path, ROWS)))
    check_env(env)
    check_env(SegmentedEnvironment(env, "steps"))
