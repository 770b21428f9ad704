"""The Experiments page in a real browser (Debian chromium + playwright) on the embedded model:
the ready-made misleading hint on 2 copied sample traces at 2 positions, planned, run, its
summary and steerability map drawn, and a branch's link opening Browse on that branch.

The served app's model is the one Settings names (the embedded SmolLM2 by default; Settings
offers no scripted backend), so the branches are the embedded model's, 16 tokens each.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from llenvs.experiments import read_experiment
from llenvs.traces import read_branches, read_traces, write_traces
from tests.app.served_app import IDLE, REPO, grid_records, served_app

SAMPLE = REPO / "sample_traces" / "products-smollm2.jsonl"
TASKS = (2, 3)
"""Two of the sample's products traces: task 2 succeeded, task 3 failed."""
LONG = 300_000
"""Milliseconds for the run: the embedded model loads in the app, then 4 branches of 16 tokens."""


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("experiment-traces")
    parents = [t for t in read_traces(SAMPLE) if t.task.task_index in TASKS]
    assert [t.success for t in parents] == [True, False]
    write_traces(folder / "products.jsonl", parents)
    with served_app(folder) as url:
        yield url, folder


def _summary_row(page) -> dict[str, str]:
    """The summary table's row, once its grid has drawn it (polled: grids draw after the run)."""
    grids = page.locator("[data-testid='stDataFrame']")
    for _ in range(60):
        for number in range(grids.count()):
            rows = [r for r in grid_records(grids.nth(number)) if "McNemar p" in r]
            if rows:
                return rows[0]
        page.wait_for_timeout(500)
    shown = [grid_records(grids.nth(n)) for n in range(grids.count())]
    raise AssertionError(f"no summary table among the page's {grids.count()} grids: {shown}")


def _typed(page, box, value: str) -> None:
    """Type ``value`` into a text or number box and commit it; wait for the app's rerun."""
    box.fill(value)
    box.press("Enter")
    page.wait_for_timeout(500)
    page.wait_for_selector(IDLE, timeout=60_000)


def test_plan_run_read_the_map_and_open_a_branch_in_browse(app, browser):
    url, folder = app
    page = browser.new_page(viewport={"width": 1400, "height": 1200})
    page.goto(f"{url}/experiments")
    page.get_by_text("Planned:").first.wait_for(timeout=60_000)
    page.wait_for_selector(IDLE, timeout=60_000)
    recipe = page.locator("[data-testid='stSelectbox']").filter(has_text="Recipe")
    chosen = recipe.get_by_role("combobox")
    assert "misleading-hint" in (chosen.input_value() or chosen.inner_text())  # ready-made
    _typed(page, page.get_by_role("textbox", name="Positions"), "0.25,0.75")
    _typed(page, page.get_by_role("textbox", name="max tokens"), "16")
    planned = "Planned: 4 branches (2 parents, 4 points, 1 sample each); at most 64 new tokens."
    page.get_by_text(planned).wait_for(timeout=60_000)

    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_text(re.compile(r"^Done: 4 of 4 branches recorded")).wait_for(timeout=LONG)
    page.get_by_text("Steerability map").first.wait_for(timeout=60_000)
    page.wait_for_selector(IDLE, timeout=60_000)
    chart = page.locator(".js-plotly-plot")
    chart.first.wait_for(timeout=60_000)
    assert chart.count() == 1
    assert chart.first.locator(".scatterlayer .trace").count() >= 2  # flip and answer-change

    [path] = folder.glob("products-misleading-hint-*.experiment.jsonl")
    header, outcomes = read_experiment(path)
    assert header.recipe.name == "misleading-hint" and len(outcomes) == 4
    summary = _summary_row(page)
    assert (summary["parents"], summary["branches"]) == ("2", "4")
    before = sum(bool(o.parent_success) for o in outcomes) / 4
    after = sum(bool(o.success) for o in outcomes) / 4
    shown = f"{100 * before:.1f}% → {100 * after:.1f}%"
    assert summary["success before → after"] == shown

    links = page.get_by_role("link", name=re.compile(r"^task \d+, segment \d+ \(sample 0\): "))
    assert links.count() == 4
    label = links.first.inner_text()
    links.first.click()
    page.get_by_text("A branch of trace").first.wait_for(timeout=60_000)
    query = parse_qs(urlparse(page.url).query)
    assert urlparse(page.url).path.endswith("/browse")
    assert query["file"] == [str(folder / "products.branches.jsonl")]
    branch = list(read_branches(folder / "products.jsonl"))[int(query["trace"][0]) - 1]
    [outcome] = [o for o in outcomes if o.branch_id == branch.trace_id]
    assert f"task {outcome.task_index}, segment {outcome.segment} (sample 0)" in label
    assert query["segment"] == [str(outcome.segment)]
    page.close()
