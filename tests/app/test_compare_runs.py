"""Compare runs under AppTest: two trace files of the same leg_counting tasks, task by task."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from llenvs.core import SegmentedEnvironment
from llenvs.core.registry import environment_registry
from llenvs.evaluation import replay_trace
from llenvs.traces import read_traces, write_traces
from llenvs.ui.trace_source import TRACES_DIR_ENV
from tests.app.test_pages import open_page, texts


def _run(env, answers):
    return [
        replay_trace(env, task, f"I count. <answer>{answer}</answer>", model="scripted")
        for task, answer in answers.items()
    ]


def write_two_runs(folder):
    """``a.jsonl`` and ``b.jsonl``: leg_counting tasks 0-3; a solves 0 and 1, b 0, 2 and 3."""
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=100, seed=42)
    env = SegmentedEnvironment(base, "sentence")
    right = {t.task.task_index: t.task.expected_answer for t in _run(env, dict.fromkeys(range(4)))}
    folder.mkdir(parents=True)
    a = {0: right[0], 1: right[1], 2: "-1", 3: "-1"}
    b = {0: right[0], 1: "-1", 2: right[2], 3: right[3]}
    write_traces(folder / "a.jsonl", _run(env, a))
    write_traces(folder / "b.jsonl", _run(env, b))
    return folder


@pytest.fixture
def two_runs(tmp_path, monkeypatch):
    folder = write_two_runs(tmp_path / "traces")
    monkeypatch.setenv(TRACES_DIR_ENV, str(folder))
    return folder


def test_two_runs_side_by_side_with_the_paired_difference(two_runs):
    at = open_page("compare_runs")
    assert not at.exception
    assert at.multiselect(key="runs-files").value == ["a.jsonl", "b.jsonl"]
    assert "4 tasks in every run" in texts(at)
    summary, paired, split = (d.value for d in at.dataframe)
    assert summary["success (95% interval)"].str.startswith(("2/4 = 50%", "3/4 = 75%")).all()
    row = paired.iloc[0]
    assert row["only a"] == 1 and row["only it"] == 2 and row["difference"] == "+25.0 points"
    assert row["paired"] == "4 tasks paired by question; every task is in both runs"
    assert row["McNemar p"] == 1.0
    assert split["task"].tolist() == [1, 2, 3]
    labels = [str(link.proto.label) for link in at.get("page_link")]
    assert "a: solved (line 2)" in labels and "b: failed (line 2)" in labels


def test_fewer_than_two_runs_asks_for_more(two_runs):
    at = open_page("compare_runs")
    at.multiselect(key="runs-files").set_value(["a.jsonl"]).run()
    assert "Choose at least two trace files." in texts(at)
    assert not at.dataframe


def _renumbered(traces, indices):
    return [
        dataclasses.replace(t, task=dataclasses.replace(t.task, task_index=i))
        for t, i in zip(traces, indices, strict=True)
    ]


@pytest.fixture
def renumbered_runs(two_runs):
    """``c``: a's questions at other indices (as an import numbers them); ``d``: a's indices
    with other questions (tasks 4-7 numbered 0-3)."""
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=100, seed=42)
    env = SegmentedEnvironment(base, "sentence")
    a = list(read_traces(two_runs / "a.jsonl"))
    write_traces(two_runs / "c.jsonl", _renumbered(a, [9, 378, 5, 6]))
    others = _run(env, dict.fromkeys(range(4, 8), "-1"))
    write_traces(two_runs / "d.jsonl", _renumbered(others, [0, 1, 2, 3]))
    return two_runs


def test_runs_are_paired_by_question_never_by_index_alone(renumbered_runs):
    at = open_page("compare_runs")
    at.multiselect(key="runs-files").set_value(["a.jsonl", "c.jsonl", "d.jsonl"]).run()
    assert not at.exception
    assert "0 tasks in every run" in texts(at)
    paired = at.dataframe[1].value
    c, d = paired.iloc[0], paired.iloc[1]
    assert c["paired"] == "4 tasks paired by question; every task is in both runs"
    assert c["difference"] == "+0.0 points"
    assert d["paired"] == (
        "no task paired: 4 tasks only in a, 4 only in d (4 at an index d gives another question)"
    )
    assert pd.isna(d["difference"])  # no +100 points from pairing 4 * 3 with 3 * 3
    shown = texts(at)
    assert "The runs agree on every" not in shown
    assert "No task is in every run with a verdict, so there is nothing to compare" in shown


def test_the_mcnemar_column_comes_before_the_counts(two_runs):
    at = open_page("compare_runs")
    columns = list(at.dataframe[1].value.columns)
    assert columns[:4] == ["against", "difference", "95% interval", "McNemar p"]
