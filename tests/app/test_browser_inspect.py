"""An Inspect log uploaded on Home in a real browser (Debian chromium + playwright), then
opened in Browse: its reasoning cut into segments, its score shown."""

from __future__ import annotations

import re

import pytest
from inspect_ai.model import ContentReasoning, ContentText

from tests.app.served_app import choose, screenshot, served_app
from tests.traces.test_inspect_import import COWS, SUM, _output, write_log


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    """The log, written before the browser starts (Inspect runs its own asyncio loop, which
    cannot start inside playwright's)."""
    outputs = [
        _output(
            ContentReasoning(reasoning="There are 2 cows. Each cow has 4 legs. So 2 × 4 = 8."),
            ContentText(text="The answer is 8."),
        ),
        _output(ContentText(text="7")),
    ]
    return write_log(tmp_path_factory.mktemp("logs"), [COWS, SUM], outputs)


def test_an_inspect_log_uploaded_on_home_opens_in_browse(log, browser, tmp_path):
    folder = tmp_path / "traces"
    folder.mkdir()
    with served_app(folder) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1300})
        page.goto(url)
        form = page.locator("[data-testid='stForm']")
        form.wait_for(timeout=60_000)
        choose(page, form, re.compile(r"^inspect$"))
        form.locator("input[type='file']").set_input_files(str(log))
        form.get_by_text(re.compile(r"\.eval$")).wait_for(timeout=30_000)  # uploaded
        form.get_by_role("button", name="Import").click()
        done = page.get_by_text(re.compile(r"^Imported 2 traces into "))
        done.wait_for(timeout=60_000)
        assert done.inner_text().endswith("reasoning redacted in 0; reasoning absent in 1")
        page.get_by_role("link", name="Browse them").click()
        page.get_by_text("legs · task 0 · line 1").first.wait_for(timeout=60_000)
        page.get_by_text(re.compile("final rewards: includes 1")).first.wait_for(timeout=30_000)
        body = page.locator("body").inner_text()
        screenshot(page, "inspect-import.png")
        page.close()
    assert "succeeded · final rewards: includes 1 · 4 segments" in body  # the reasoning, cut
    [imported] = folder.glob("imported-*.jsonl")
    assert imported.stat().st_size > 0
