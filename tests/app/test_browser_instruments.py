"""The instruments of the step values panel in a real browser (Debian chromium + playwright).

"Only rollouts where the content did not return" on the products sample's stored rollouts: the
served app compares them with all-MiniLM-L6-v2, says so, stores what it found beside the trace,
and shows the numbers ``content_returns`` reads back from there.
"""

from __future__ import annotations

import json
import shutil

from llenvs.analysis import MINILM, MiniLMSimilarity, analysis_path, content_returns, stored_keys
from llenvs.analysis.stored_step_analysis import stored_step_analysis
from llenvs.traces import read_traces
from tests.app.served_app import REPO, screenshot, served_app

PRODUCTS = REPO / "sample_traces" / "products-smollm2.jsonl"


def test_the_content_that_returns_is_found_stored_and_shown(browser, tmp_path):
    folder = tmp_path / "traces"
    folder.mkdir()
    for path in (PRODUCTS, analysis_path(PRODUCTS)):
        shutil.copy(path, folder / path.name)
    path = folder / PRODUCTS.name
    store = analysis_path(path)
    with served_app(folder) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1300})
        page.goto(f"{url}/browse?file={path}&trace=1&segment=2")
        panel = page.locator("[data-testid='stExpander']").filter(has_text="Step values").first
        toggle = panel.get_by_text("Only rollouts where the content did not return")
        toggle.wait_for(timeout=60_000)
        toggle.click()
        caption = panel.get_by_text("Removed content returned in").first
        caption.wait_for(timeout=120_000)
        shown = caption.inner_text()
        panel.locator("[data-testid='stVegaLiteChart']").first.wait_for(timeout=30_000)
        screenshot(panel, "content-returns.png")
        page.close()
    kinds = [json.loads(line)["kind"] for line in store.read_text().splitlines()]
    assert kinds.count("returns") == 1  # found by the app, once
    trace = next(read_traces(path))
    analysis = stored_step_analysis(trace, store, stored_keys(store, trace.trace_id)[-1])
    found = content_returns(trace, analysis, similarity=MiniLMSimilarity(), store=store)
    assert found.compared_now == 0  # the app's findings, read back
    assert found.similarity == MINILM and shown.startswith(found.caption())
