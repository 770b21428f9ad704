"""The Labels page in a real browser (Debian chromium + playwright): open it on a labelled step
file, follow a disagreement's link to its step in Browse, label that step there, and find the
label in the file's label store and, back on the Labels page, in its counts."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from llenvs.cli.main import main
from llenvs.traces import StepLabel, append_labels, read_labels, read_traces
from llenvs.workbench.models import Settings, save_settings
from tests.app.served_app import IDLE, grid_records, keys_ready, served_app
from tests.conftest import read_jsonl

ROWS = 4
"""GSM8K rows of the step file imported (ProcessBench's labels come with them)."""


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A step file labelled by ProcessBench, one of its steps labelled the other way by bo,
    served with ada as the labeller."""
    folder = tmp_path_factory.mktemp("labels-page")
    rows = [r for r in read_jsonl("step_traces.jsonl") if r["dataset"] == "processbench/gsm8k"]
    source = tmp_path_factory.mktemp("labels-source") / "rows.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows[:ROWS]), encoding="utf-8")
    path = folder / "steps.jsonl"
    assert main(["import", "processbench", str(source), "-o", str(path)]) == 0
    first = next(read_traces(path))
    said = read_labels(path).latest("processbench")[first.trace_id][0].label
    append_labels(path, [StepLabel(first.trace_id, 0, -1 if said == 1 else 1, "bo")])
    save_settings(folder, Settings(labeller="ada"))
    with served_app(folder) as url:
        yield url, path


def _coverage(page) -> dict[str, dict[str, str]]:
    """The Labellers table by labeller, once its grid has drawn its rows."""
    page.get_by_role("heading", name="Labellers").wait_for(timeout=60_000)
    page.wait_for_selector(IDLE, timeout=60_000)
    grid = page.locator("[data-testid='stDataFrame']").first
    for _ in range(60):
        rows = grid_records(grid)
        if rows:
            return {row["labeller"]: row for row in rows}
        page.wait_for_timeout(500)
    raise AssertionError("the Labellers table was never drawn")


def test_a_step_labelled_from_a_disagreements_link_is_stored_and_counted(app, browser):
    url, path = app
    first = next(read_traces(path))
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    page.goto(f"{url}/labels?file={path}")
    before = _coverage(page)
    assert set(before) == {"processbench", "bo"}
    assert before["bo"]["steps labelled"] == "1"

    # processbench and bo disagree on step 0 of line 1: its link opens Browse there
    page.get_by_role("heading", name="processbench and bo").wait_for(timeout=30_000)
    link = page.locator("a").filter(has_text=re.compile(r"line 1, segment 0: processbench "))
    link.click()
    page.get_by_role("tab", name="Segment 0").wait_for(timeout=60_000)
    assert "trace=1" in page.url and "segment=0" in page.url
    page.locator('[data-testid="stButtonGroup"]').get_by_text("Label steps").click()
    page.get_by_text(re.compile(r"Labelling segment 0 of \d+")).wait_for(timeout=30_000)
    page.wait_for_selector(IDLE, timeout=30_000)
    keys_ready(page, "label-keys")
    page.keyboard.press("1")  # ada: step 0 is wrong
    page.get_by_text(re.compile(r"Labelling segment 1 of \d+")).wait_for(timeout=30_000)
    page.wait_for_selector(IDLE, timeout=30_000)

    latest = read_labels(path).latest("ada")
    assert {s: label.label for s, label in latest[first.trace_id].items()} == {0: -1}
    assert set(latest) == {first.trace_id}

    # the Labels page counts it, and compares ada with the others
    page.goto(f"{url}/labels?file={path}")
    after = _coverage(page)
    assert set(after) == {"processbench", "bo", "ada"}
    assert (after["ada"]["traces"], after["ada"]["steps labelled"]) == ("1", "1")
    assert (after["ada"]["−1 wrong"], after["ada"]["+1 right"]) == ("1", "0")
    assert after["processbench"] == before["processbench"]
    page.get_by_role("heading", name="processbench and ada").wait_for(timeout=30_000)
    page.close()
