"""The Search page in a real browser (Debian chromium + playwright): a filtered text search over
the Thought Anchors sample, a hit's link opening Browse at its step, and the meaning index built
in the background with its progress, then a meaning search (real all-MiniLM-L6-v2)."""

from __future__ import annotations

import shutil
from urllib.parse import urlencode

from llenvs.workbench.search import StepStore
from tests.app.served_app import IDLE, REPO, grid_records, screenshot, served_app

ANCHORS = "thought_anchors-r1-distill-llama-8b"


def _records(page) -> list[dict[str, str]]:
    """The hits table's rows, once its grid has drawn them (a moment after the page is idle)."""
    for _ in range(40):
        records = grid_records(page.get_by_test_id("stDataFrame").first)
        if records:
            return records
        page.wait_for_timeout(250)
    return []


def test_search_a_folder_open_a_hit_in_browse_and_search_by_meaning(browser, tmp_path):
    folder = tmp_path / "traces"
    folder.mkdir()
    for suffix in (".jsonl", ".analysis.jsonl"):
        shutil.copy(REPO / "sample_traces" / f"{ANCHORS}{suffix}", folder / f"{ANCHORS}{suffix}")
    with served_app(folder) as url:
        page = browser.new_page(viewport={"width": 1500, "height": 1100})
        page.goto(f"{url}/search")
        query = page.get_by_label("Query")
        query.wait_for(timeout=30_000)
        query.fill("circular")
        query.press("Enter")
        where = page.get_by_label("Filter", exact=True)
        where.fill('moved and tags ~ "plan"')
        where.press("Enter")
        page.get_by_text("found in", exact=False).first.wait_for(timeout=30_000)
        page.wait_for_selector(IDLE, timeout=30_000)
        records = _records(page)
        assert [(r["trace"], r["step"]) for r in records] == [("2", "0")]
        assert "«circular»" in records[0]["snippet"]
        screenshot(page, "search.png", full_page=True)

        params = urlencode({"file": str(folder / f"{ANCHORS}.jsonl"), "trace": 2, "segment": 0})
        page.goto(f"{url}/browse?{params}")
        page.get_by_text("Summary: apply circular permutations").wait_for(timeout=60_000)

        page.goto(f"{url}/search")
        page.get_by_text("meaning", exact=True).first.click()
        page.get_by_role("button", name="Build the meaning index").click()
        page.get_by_text("Done: 549 steps embedded", exact=False).wait_for(timeout=300_000)
        query = page.get_by_label("Query")
        query.fill("arranging people around a round table")
        query.press("Enter")
        page.get_by_text("found in", exact=False).first.wait_for(timeout=60_000)
        page.wait_for_selector(IDLE, timeout=30_000)
        records = _records(page)
        assert len(records) >= 10 and float(records[0]["score"]) > 0.5  # the grid draws ~12 rows
        assert "50 steps found" in page.inner_text("body")
        page.close()
    store = StepStore(folder)
    assert store.step_count(store.ids([folder / f"{ANCHORS}.jsonl"])) == 549
    store.close()
