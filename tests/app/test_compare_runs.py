"""Compare runs under AppTest: trace files of the same tasks, and an experiment's positions."""

from __future__ import annotations

import dataclasses
import json
from urllib.parse import parse_qsl

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from llenvs.core import Feedback, SegmentedEnvironment
from llenvs.core.registry import environment_registry
from llenvs.evaluation import replay_trace
from llenvs.experiments import (
    ParentFilter,
    Recipe,
    RelativePositions,
    read_experiment,
    start_experiment,
    summarize,
)
from llenvs.traces import read_traces, write_traces
from llenvs.workbench.files import TRACES_DIR_ENV
from tests.app.test_pages import REPO, open_page, texts


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


def test_it_opens_on_the_two_files_that_share_tasks_not_the_first_two_by_name(two_runs):
    """``0-other.jsonl`` (tasks 4-7) comes first by name; a and b share tasks 0-3."""
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=100, seed=42)
    others = _run(SegmentedEnvironment(base, "sentence"), dict.fromkeys(range(4, 8), "-1"))
    write_traces(two_runs / "0-other.jsonl", others)
    at = open_page("compare_runs")
    assert at.multiselect(key="runs-files").options[0] == "0-other.jsonl"
    assert at.multiselect(key="runs-files").value == ["a.jsonl", "b.jsonl"]
    assert "4 tasks in every run" in texts(at)


def test_runs_that_share_no_task_are_not_chosen_for_the_user(tmp_path, monkeypatch):
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=100, seed=42)
    env = SegmentedEnvironment(base, "sentence")
    write_traces(tmp_path / "a.jsonl", _run(env, dict.fromkeys(range(2), "-1")))
    write_traces(tmp_path / "b.jsonl", _run(env, dict.fromkeys(range(2, 4), "-1")))
    monkeypatch.setenv(TRACES_DIR_ENV, str(tmp_path))
    at = open_page("compare_runs")
    assert at.multiselect(key="runs-files").value == []
    assert "Choose at least two runs." in texts(at)


def test_fewer_than_two_runs_asks_for_more(two_runs):
    at = open_page("compare_runs")
    at.multiselect(key="runs-files").set_value(["a.jsonl"]).run()
    assert "Choose at least two runs." in texts(at)
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


SAMPLES = REPO / "sample_traces"
PARENTS = "products-smollm2"


def _expected(name, fraction):
    """The experiment summary of the branches ``RelativePositions`` puts at ``fraction``,
    found from the parents themselves (not by the code under test)."""
    header, outcomes = read_experiment(SAMPLES / f"{PARENTS}-{name}.experiment.jsonl")
    assert header.recipe.how.samples == 1
    parents = {t.trace_id: t for t in read_traces(SAMPLES / f"{PARENTS}.jsonl")}
    rule = RelativePositions((fraction,))
    at = [o for o in outcomes if o.segment in rule.segments(parents[o.parent_id], None)]
    return at, summarize(at)


@pytest.fixture
def samples(monkeypatch):
    monkeypatch.setenv(TRACES_DIR_ENV, str(SAMPLES))
    return SAMPLES


@pytest.mark.parametrize(
    ("name", "fractions"),
    [("misleading-hint", (0.25, 0.5, 0.75)), ("early-answering", (0.0, 0.25, 0.5, 0.75))],
)
def test_an_experiment_position_against_its_parents_is_the_experiment_summary(
    samples, name, fractions
):
    at = open_page("compare_runs")
    box = at.multiselect(key="runs-files")
    sidecar = samples / f"{PARENTS}.branches.jsonl"
    branches = list(read_traces(sidecar))
    for fraction in fractions:
        run = f"{PARENTS}-{name} @ position {fraction:g}"
        assert run in box.options
        box.set_value([f"{PARENTS}.jsonl", run]).run()
        assert not at.exception, at.exception
        made, summary = _expected(name, fraction)
        paired = summary.paired
        assert paired is not None and paired.tasks == len(made) == 4
        shown = at.dataframe[1].value.iloc[0]
        assert shown["against"] == run
        assert shown["paired"].startswith(f"{paired.tasks} tasks paired by question")
        assert (shown[f"{PARENTS} solved"], shown["it solved"]) == (
            paired.first_successes,
            paired.second_successes,
        )
        assert (shown[f"only {PARENTS}"], shown["only it"]) == (
            summary.success_to_fail,
            summary.fail_to_success,
        )
        assert shown["difference"] == f"{100 * paired.difference:+.1f} points"
        assert shown["McNemar p"] == round(paired.p_value, 4)
        rate = at.dataframe[0].value.set_index("run").loc[run, "success (95% interval)"]
        assert rate.startswith(f"{paired.second_successes}/{paired.tasks} = ")
        flips = summary.fail_to_success + summary.success_to_fail
        assert len(at.dataframe[2].value) == flips if flips else len(at.dataframe) == 2
        made_here = {o.branch_id: o for o in made}
        linked = [params for label, params in _links(at) if label.startswith(run)]
        assert len(linked) == flips
        for params in linked:  # each disagreement opens its branch, at the intervened segment
            assert params["file"] == str(sidecar)
            branch = branches[int(params["trace"]) - 1]
            assert branch.trace_id in made_here
            assert int(params["segment"]) == made_here[branch.trace_id].segment


def _links(at):
    return [
        (str(link.proto.label), dict(parse_qsl(link.proto.query_string)))
        for link in at.get("page_link")
    ]


def test_the_sample_folder_opens_on_an_experiment_against_its_parents(samples):
    """Its trace files are of different environments: the pair sharing tasks is the products
    parents and the first experiment's first position (4 parents branched there)."""
    at = open_page("compare_runs")
    run = f"{PARENTS}-early-answering @ position 0"
    assert at.multiselect(key="runs-files").value == [f"{PARENTS}.jsonl", run]
    assert "4 tasks in every run" in texts(at)
    paired = at.dataframe[1].value.iloc[0]
    assert paired["against"] == run
    assert paired["paired"].startswith("4 tasks paired by question")


def test_long_run_names_in_headers_keep_the_end_that_tells_them_apart(samples):
    runs = [f"{PARENTS}-misleading-hint @ position {f}" for f in ("0.25", "0.5", "0.75")]
    at = open_page("compare_runs")
    at.multiselect(key="runs-files").set_value([f"{PARENTS}.jsonl", *runs]).run()
    assert not at.exception, at.exception
    headers = json.loads(at.dataframe[2].proto.columns)
    labels = [headers[f"{run} success"]["label"] for run in runs]
    assert len(set(labels)) == 3 and all(len(label) <= 32 for label in labels)
    assert [label.rsplit(" ", 2)[-2] for label in labels] == ["0.25", "0.5", "0.75"]
    assert headers[f"{runs[0]} line"]["help"] == f"{runs[0]}: line"  # the whole name


def test_the_experiments_page_opens_compare_runs_on_the_parents_and_positions(samples):
    at = open_page("experiments")
    at.radio(key="xp-mode").set_value("Open a recorded experiment").run()
    experiment = samples / f"{PARENTS}-misleading-hint.experiment.jsonl"
    at.selectbox(key="xp-open").select(experiment).run()
    at.button(key=f"xp-compare-{experiment.name}").click().run()
    assert not at.exception, at.exception
    runs = [f"{PARENTS}-misleading-hint @ position {f}" for f in ("0.25", "0.5", "0.75")]
    assert at.multiselect(key="runs-files").value == [f"{PARENTS}.jsonl", *runs]
    assert at.title[0].value == "Compare runs"
    paired = at.dataframe[1].value
    assert paired["against"].tolist() == runs
    after = [_expected("misleading-hint", f)[1].paired.second_successes for f in (0.25, 0.5, 0.75)]
    assert paired["it solved"].tolist() == after  # as the experiment's summary says
    at.switch_page("pages/compare_runs.py").run()  # AppTest reruns the page it was told
    at.multiselect(key="runs-files").set_value([f"{PARENTS}.jsonl", runs[0]]).run()
    assert at.multiselect(key="runs-files").value == [f"{PARENTS}.jsonl", runs[0]]  # read once


def test_a_url_names_the_runs_to_compare(samples):
    run = f"{PARENTS}-early-answering @ position 0"
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.run()
    at.query_params["runs"] = [f"{PARENTS}.jsonl", run, "gone.jsonl"]
    at.switch_page("pages/compare_runs.py").run()
    assert not at.exception, at.exception
    assert at.multiselect(key="runs-files").value == [f"{PARENTS}.jsonl", run]
    assert any("'gone.jsonl' is not a run" in w.value for w in at.warning)


def test_an_experiment_that_cannot_be_opened_is_said_and_the_other_runs_still_show(two_runs):
    recipe = Recipe("hint", ParentFilter(), RelativePositions((0.5,)), Feedback("Not so."))
    start_experiment(two_runs / "lost.experiment.jsonl", recipe, two_runs / "a.jsonl")
    (two_runs / "lost.experiment.jsonl").write_text(
        (two_runs / "lost.experiment.jsonl").read_text().replace('"a.jsonl"', '"gone.jsonl"')
    )
    torn = two_runs / "torn.experiment.jsonl"
    start_experiment(torn, recipe, two_runs / "b.jsonl")
    with torn.open("a") as file:
        file.write('{"kind": "branch", "parent_id": "x", "tas')
    at = open_page("compare_runs")
    assert not at.exception, at.exception
    warnings = [w.value for w in at.warning]
    assert any(
        "lost.experiment.jsonl: its parents' file" in w and "gone.jsonl is missing" in w
        for w in warnings
    ), warnings
    assert any(f"{torn}:2: skipped" in w for w in warnings), warnings
    assert at.multiselect(key="runs-files").options == ["a.jsonl", "b.jsonl"]
    assert "4 tasks in every run" in texts(at)  # the trace files still compare


def _diff_toggles(at):
    return [t for t in at.toggle if str(t.key).startswith("runs-diff-")]


def test_a_disagreement_opens_as_an_aligned_diff_of_the_two_traces(two_runs):
    at = open_page("compare_runs")
    toggles = _diff_toggles(at)
    assert [t.label for t in toggles] == ["Aligned diff"] * 3  # one per disagreeing task
    toggles[0].set_value(True).run()  # task 1: a solved it (line 2), b did not (line 2)
    assert not at.exception, at.exception
    shown = [c.value for c in at.caption]
    assert "a: **a**, line 2 of a.jsonl · b: **b**, line 2 of b.jsonl" in shown
    outcome, aligned = (d.value for d in at.dataframe[3:])
    right = list(read_traces(two_runs / "a.jsonl"))[1]
    answers = outcome.set_index("")
    assert (answers["a"]["final answer"], answers["b"]["final answer"]) == (
        right.task.expected_answer,
        "-1",
    )
    assert answers["change"]["success"] == "True → False"
    [row] = aligned.to_dict("records")
    assert (row["op"], row["note"], row["a #"], row["b #"]) == (
        "changed",
        "first difference",
        "0",
        "0",
    )
    assert (row["a"], row["b"]) == (  # 140 against -1: the 1 they share kept
        "I count. <answer>1[-40-]</answer>",
        "I count. <answer>{+-+}1</answer>",
    )
    assert row["paired by"] == "text"
    caption = next(c.value for c in at.caption if c.value.startswith("Aligned step by step"))
    assert "1 changed · paired by text (no step needed meaning: lexical)" in caption
    assert len(at.dataframe) == 5  # the others stay closed: nothing read for them


def test_an_experiment_position_opens_its_branch_beside_its_parent(samples):
    run = f"{PARENTS}-misleading-hint @ position 0.5"
    at = open_page("compare_runs")
    at.multiselect(key="runs-files").set_value([f"{PARENTS}.jsonl", run]).run()
    toggles = _diff_toggles(at)
    assert toggles, "the position flips no task"
    toggles[0].set_value(True).run()
    assert not at.exception, at.exception
    aligned = next(d.value for d in at.dataframe if "note" in d.value.columns)
    notes = aligned["note"].tolist()
    assert notes[:2] == ["kept", "feedback"]  # the hint where the experiment gave it
    assert aligned["b"][1].startswith("user: Hint: the answer is not")
    # the parent's line 7 repeats "N. 8 * 8 = 64" and so does the branch after the hint: its kept
    # prefix still pairs one to one, not with the repeats after the hint
    assert aligned["a #"][0] == aligned["b #"][0] == "0–4"
    assert aligned["op"].tolist()[2:7] == ["inserted"] * 5
