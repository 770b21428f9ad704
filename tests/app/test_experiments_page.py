"""The Experiments page under AppTest, with the scripted backend: build, run, read, open."""

from __future__ import annotations

import dataclasses
import shutil
from urllib.parse import parse_qsl

import pytest
from scipy.stats import binomtest

from llenvs.core import Feedback, Force, TextScore
from llenvs.core.run_spec import DEFAULT_TEXT, Provider
from llenvs.experiments import (
    How,
    ParentFilter,
    Recipe,
    RelativePositions,
    read_experiment,
)
from llenvs.experiments import run_experiment as run_library_experiment
from llenvs.inference import get_backend
from llenvs.traces import read_branches, read_traces
from llenvs.ui import _experiments as experiments_view
from llenvs.workbench.files import TRACES_DIR_ENV
from tests.app.test_evaluate import Held
from tests.app.test_pages import REPO, open_page, texts
from tests.experiments.scripted_parents import parents_file
from tests.experiments.test_plan import NUMBER_FORMAT

RIGHT_FOR_TASK_0 = "So 100. <answer>100</answer>"
"""Every branch's answer: right for task 0 (whose parent says 8: a flip), wrong for task 1."""


@pytest.fixture
def folder(tmp_path, monkeypatch):
    traces = tmp_path / "traces"
    traces.mkdir()
    monkeypatch.setenv(TRACES_DIR_ENV, str(traces))
    parents_file(traces)
    return traces


def _links(at):
    """Each page link's label and query parameters."""
    return [
        (str(link.proto.label), dict(parse_qsl(link.proto.query_string)))
        for link in at.get("page_link")
    ]


def _check_results(at, folder):
    """The map, the summary and one link per branch, each to its branch in the sidecar."""
    shown = texts(at)
    assert "Steerability map" in shown
    [chart] = at.get("plotly_chart")
    assert '"flip rate"' in chart.proto.spec and '"answer-change rate"' in chart.proto.spec
    summary = next(d.value for d in at.dataframe if "McNemar p" in d.value.columns)
    row = summary.iloc[0]
    assert (int(row["parents"]), int(row["branches"])) == (2, 4)
    assert row["success before → after"] == "0.0% → 50.0%"  # task 0's two branches flip
    assert (int(row["fail → success"]), int(row["success → fail"])) == (2, 0)
    assert row["answer changed (95%)"].startswith("4/4 = 1.000")
    sidecar = folder / "runs.branches.jsonl"
    branches = list(read_branches(folder / "runs.jsonl"))
    links = _links(at)
    assert len(links) == 4
    for label, params in links:
        assert params["file"] == str(sidecar)
        branch = branches[int(params["trace"]) - 1]  # the line, from 1
        assert branch.parent is not None
        task = branch.task.task_index
        assert label.startswith(f"task {task}, segment {params['segment']} ")
        assert label.endswith("fail → success, answer 8 → 100" if task == 0 else "answer 8 → 100")


def test_build_run_two_parents_at_two_positions_then_read_the_map_and_links(folder, monkeypatch):
    backend = get_backend("scripted", outputs=[RIGHT_FOR_TASK_0] * 4)
    monkeypatch.setattr(experiments_view, "load_backend", lambda choice, key=None: backend)
    at = open_page("experiments")
    at.selectbox(key="xp-recipe").select("custom").run()
    at.text_input(key="xp-at-custom").input("0,0.5").run()
    at.text_area(key="xp-text").input("Check again.").run()
    at.text_input(key="xp-limit").input("2").run()
    assert (
        "Planned: 4 branches (2 parents, 4 points, 1 sample each); at most 256 new tokens"
        in texts(at)
    )
    at.button(key="xp-run").click().run()
    job = at.session_state["xp-job"]
    assert job.wait(60)
    at.run()
    assert not at.exception, at.exception
    assert any(s.value.startswith("Done: 4 of 4 branches recorded, 2 flips") for s in at.success)
    [path] = folder.glob("runs-feedback-*.experiment.jsonl")
    header, outcomes = read_experiment(path)
    assert header.recipe.what == Feedback("Check again.") and len(outcomes) == 4
    _check_results(at, folder)


def test_a_recipe_that_selects_nothing_is_said_and_nothing_runs(folder):
    at = open_page("experiments")
    at.selectbox(key="xp-recipe").select("custom").run()
    at.text_input(key="xp-at-custom").input("9").run()
    assert any("selects no segment" in e.value for e in at.error)
    assert "xp-run" not in [b.key for b in at.button]


def test_positions_on_an_empty_step_are_skipped_and_counted_in_the_plan(folder):
    """Feedback after an embedded-model trace's empty last step cannot run: the plan says so."""
    shutil.copy(NUMBER_FORMAT, folder / "nf.jsonl")
    at = open_page("experiments")
    at.selectbox(key="xp-file").select(str(folder / "nf.jsonl")).run()
    at.selectbox(key="xp-recipe").select("custom").run()
    at.text_input(key="xp-at-custom").input("every").run()
    at.text_input(key="xp-limit").input("0").run()
    assert not at.exception, at.exception
    [planned] = [i.value for i in at.info if i.value.startswith("Planned:")]
    assert planned.startswith("Planned: 41 branches (14 parents, 41 points, 1 sample each)")
    assert "4 positions skipped: empty segment (in the kept prefix" in planned
    assert "xp-run" in [b.key for b in at.button]


def test_opening_a_recorded_experiment_shows_its_results_without_running(
    folder, tmp_path, monkeypatch
):
    recipe = Recipe(
        "hint", ParentFilter(limit=2), RelativePositions((0.0, 0.5)), Feedback("Check again.")
    )
    backend = get_backend("scripted", outputs=[RIGHT_FOR_TASK_0] * 4)
    elsewhere = tmp_path / "recorded-elsewhere"  # then moved, as sample_traces/ is checked out
    elsewhere.mkdir()
    parents_file(elsewhere)
    run_library_experiment(recipe, elsewhere / "runs.jsonl", elsewhere / "hint", backend)
    for name in ("runs.jsonl", "runs.branches.jsonl", "hint.experiment.jsonl"):
        shutil.move(elsewhere / name, folder / name)

    def no_model(choice, key=None):
        raise AssertionError("opening an experiment loads no model")

    monkeypatch.setattr(experiments_view, "load_backend", no_model)
    at = open_page("experiments")
    at.radio(key="xp-mode").set_value("Open a recorded experiment").run()
    assert not at.exception, at.exception
    assert at.selectbox(key="xp-open").value.name == "hint.experiment.jsonl"
    assert "Recipe 'hint': feedback 'Check again.' at 0,0.5 of runs.jsonl" in texts(at)
    _check_results(at, folder)
    _, params = _links(at)[0]  # a link opens Browse on the branch, beside its parent
    browse = open_page("browse", **params)
    assert not browse.exception, browse.exception
    assert "A branch of trace" in texts(browse)


def test_the_sample_experiment_opens_with_its_map_and_a_link_per_branch(monkeypatch):
    """The tour's sample experiment, as the page shows it from ``sample_traces/``."""
    samples = REPO / "sample_traces"
    monkeypatch.setenv(TRACES_DIR_ENV, str(samples))
    at = open_page("experiments")
    at.radio(key="xp-mode").set_value("Open a recorded experiment").run()
    at.selectbox(key="xp-open").select(
        samples / "products-smollm2-misleading-hint.experiment.jsonl"
    )
    at.run()
    assert not at.exception, at.exception
    summary = next(d.value for d in at.dataframe if "McNemar p" in d.value.columns).iloc[0]
    assert summary["success before → after"] == "50.0% → 75.0%"
    assert len(at.get("plotly_chart")) == 1
    links = _links(at)
    assert len(links) == 12
    assert all(p["file"] == str(samples / "products-smollm2.branches.jsonl") for _, p in links)


def test_stop_then_run_again_makes_every_branch_once(folder, monkeypatch):
    """Stopped, the run keeps what finished (the calls under way when Stop came may finish);
    run again, it makes the rest: every branch once, none lost."""
    held = Held(get_backend("scripted", outputs=[RIGHT_FOR_TASK_0] * 4))
    monkeypatch.setattr(experiments_view, "load_backend", lambda choice, key=None: held)
    at = open_page("experiments")
    at.selectbox(key="xp-recipe").select("custom").run()
    at.text_input(key="xp-at-custom").input("0,0.5").run()
    at.text_input(key="xp-limit").input("2").run()
    at.button(key="xp-run").click().run()
    job = at.session_state["xp-job"]
    at.button(key="xp-stop").click().run()
    assert "Stopping: no branch starts now" in texts(at)
    held.gate.set()
    assert job.wait(60)
    at.run()
    assert not at.exception, at.exception
    [path] = folder.glob("runs-feedback-*.experiment.jsonl")
    kept = len(read_experiment(path)[1])
    stopped = f"Stopped: {kept} of 4 branches recorded"
    assert any(s.value.startswith(stopped) for s in at.success), texts(at)
    again = get_backend("scripted", outputs=[RIGHT_FOR_TASK_0] * (4 - kept))
    monkeypatch.setattr(experiments_view, "load_backend", lambda choice, key=None: again)
    at.button(key="xp-run").click().run()
    assert at.session_state["xp-job"].wait(60)
    at.run()
    assert any(s.value.startswith("Done: 4 of 4 branches recorded") for s in at.success)
    outcomes = read_experiment(path)[1]
    assert len(outcomes) == 4 and len({o.key for o in outcomes}) == 4
    assert len(list(read_branches(folder / "runs.jsonl"))) == 4  # none made twice


def test_early_answering_on_the_embedded_model_is_recorded_and_summarised(
    tmp_path, monkeypatch, embedded_backend
):
    """The ready-made early answering, 2 sample parents x 2 positions, 8 tokens, on SmolLM2
    (the model of Settings, loaded once per session and shared with the app)."""
    del embedded_backend
    traces = tmp_path / "traces"
    traces.mkdir()
    shutil.copy(REPO / "sample_traces" / "products-smollm2.jsonl", traces / "products.jsonl")
    monkeypatch.setenv(TRACES_DIR_ENV, str(traces))
    at = open_page("experiments")
    at.selectbox(key="xp-recipe").select("early-answering").run()
    at.text_input(key="xp-at-early-answering").input("0,0.5").run()
    at.text_input(key="xp-limit").input("2").run()
    at.text_input(key="xp-max").input("8").run()
    planned = "Planned: 4 branches (2 parents, 4 points, 1 sample each); at most 32 new tokens."
    assert planned in texts(at)
    at.button(key="xp-run").click().run(timeout=120)
    assert at.session_state["xp-job"].wait(120)
    at.run()
    assert not at.exception, at.exception
    assert any(s.value.startswith("Done: 4 of 4 branches recorded") for s in at.success)

    [path] = traces.glob("products-early-answering-*.experiment.jsonl")
    header, outcomes = read_experiment(path)
    assert header.recipe == Recipe(
        "early-answering",
        ParentFilter(limit=2),
        RelativePositions((0.0, 0.5)),
        Force(DEFAULT_TEXT),
        How(max_tokens=8),
    )
    parents = list(read_traces(traces / "products.jsonl"))[:2]
    by_id = {p.trace_id: p for p in parents}
    expected_points = {(p.trace_id, s) for p in parents for s in (0, len(p.segments) // 2)}
    assert {(o.parent_id, o.segment) for o in outcomes} == expected_points
    branches = {b.trace_id: b for b in read_branches(traces / "products.jsonl")}
    assert set(branches) == {o.branch_id for o in outcomes}
    for o in outcomes:
        branch, parent = branches[o.branch_id], by_id[o.parent_id]
        assert o.parent_success == parent.success and o.segments == len(parent.segments)
        kept = [s.text for s in branch.segments[: o.segment]]
        assert kept == [s.text for s in parent.segments[: o.segment]]
        assert branch.segments[o.segment].text == DEFAULT_TEXT  # the answer forced there
        assert branch.run.spec.sampling.max_tokens == 8 and branch.run.spec.sampling.seed == 0
        assert branch.run.spec.model.provider is Provider.EMBEDDED
        assert branch.run.spec.prm == parent.run.spec.prm  # scored as its parent was
        assert all(s.prm_scores for s in branch.segments)
        assert o.success == branch.success

    shown = next(d.value for d in at.dataframe if "McNemar p" in d.value.columns).iloc[0]
    assert (int(shown["parents"]), int(shown["branches"])) == (2, 4)
    # the summary, counted here from the outcomes (the page's table function is not asked)
    before = [bool(by_id[o.parent_id].success) for o in outcomes]
    after = [bool(o.success) for o in outcomes]
    rises = sum(1 for b, a in zip(before, after, strict=True) if a and not b)
    falls = sum(1 for b, a in zip(before, after, strict=True) if b and not a)
    assert (
        shown["success before → after"]
        == f"{100 * sum(before) / 4:.1f}% → {100 * sum(after) / 4:.1f}%"
    )
    assert (int(shown["fail → success"]), int(shown["success → fail"])) == (rises, falls)
    difference = (sum(after) - sum(before)) / 4
    assert shown["paired difference (95%)"].startswith(f"{difference:+.3f} [")
    p = binomtest(rises, rises + falls).pvalue if rises + falls else 1.0  # McNemar's exact test
    assert shown["McNemar p"] == f"{p:.4g}"
    changed = sum(1 for o in outcomes if o.answer != o.parent_answer)
    assert shown["answer changed (95%)"].startswith(f"{changed}/4 = {changed / 4:.3f} [")
    assert '"flip rate"' in at.get("plotly_chart")[0].proto.spec
    assert len(_links(at)) == 4


class Scoring:
    """The scripted backend, made able to score a text: each word scores -1, "legs" -0.1 (a
    unit double for the page's table; tests/experiments/test_embedded_experiment.py scores on
    the embedded model)."""

    def __init__(self, outputs):
        self.backend = get_backend("scripted", outputs=outputs)
        self.name = self.backend.name
        self.capabilities = dataclasses.replace(self.backend.capabilities, score=self.score)

    def generate(self, requests):
        return self.backend.generate(requests)

    def score(self, items):
        return [
            TextScore(
                tuple(range(len(text.split()))),
                tuple(-0.1 if word.startswith("legs") else -1.0 for word in text.split()),
            )
            for _, text in items
        ]


def test_a_force_scored_on_policy_shows_its_percentile_and_the_rates_by_it(folder, monkeypatch):
    backend = Scoring([RIGHT_FOR_TASK_0] * 2)
    monkeypatch.setattr(experiments_view, "load_backend", lambda choice, key=None: backend)
    at = open_page("experiments")
    at.selectbox(key="xp-recipe").select("custom").run()
    at.radio(key="xp-what").set_value("force").run()
    at.text_input(key="xp-at-custom").input("0").run()
    at.text_area(key="xp-text").input("legs legs legs").run()
    at.text_input(key="xp-limit").input("2").run()
    at.text_input(key="xp-on-policy").input("4").run()
    at.button(key="xp-run").click().run()
    job = at.session_state["xp-job"]
    assert job.wait(60) and job.error is None, job.error
    at.run()
    assert not at.exception, at.exception
    [path] = folder.glob("runs-force-*.experiment.jsonl")
    header, outcomes = read_experiment(path)
    assert header.recipe.how.on_policy == 4
    # "legs legs legs" scores -0.1 a word, above every continuation of the model's own
    assert [o.on_policy for o in outcomes] == [100.0, 100.0]
    assert [o.on_policy_logprob for o in outcomes] == pytest.approx([-0.1, -0.1])
    rows = next(d.value for d in at.dataframe if "on-policy %ile" in d.value.columns)
    assert rows["on-policy %ile"].tolist() == [100.0, 100.0]
    [bins] = [d.value for d in at.dataframe if "range" in d.value.columns]
    # both at the 100th percentile; neither branch answers (the two scripted outputs went to
    # the on-policy samples, made first), so neither flips, and both answers changed from 8
    assert [(o.parent_answer, o.answer) for o in outcomes] == [("8", None), ("8", None)]
    assert bins.to_dict("records") == [
        {"range": "[75, 100)", "branches": 2, "flip rate": "0.0%", "answer changed": "100.0%"}
    ]
    assert "By how on-policy the forced text was" in texts(at)
