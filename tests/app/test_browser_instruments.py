"""The instruments in a real browser (Debian chromium + playwright).

"Only rollouts where the content did not return" on the products sample's stored rollouts: the
served app compares them with all-MiniLM-L6-v2, says so, stores what it found beside the trace,
and shows the numbers ``content_returns`` reads back from there. "How on-policy is this text?"
before the tour's first Force, on the embedded model, and the branch that records it. Compare
segmenters' step values on characters: the sample's stored comparison with its intervals and
text, then a run of its own.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

from llenvs.analysis import (
    MINILM,
    MiniLMSimilarity,
    analysis_path,
    content_returns,
    stored_comparison,
    stored_keys,
    stored_step_analysis,
)
from llenvs.analysis.instruments import (
    attention_suppression,
    instrument_agreement,
    step_matrix,
)
from llenvs.core import Force
from llenvs.evaluation.branching import OnPolicy
from llenvs.traces import read_branches, read_traces
from tests.app.served_app import REPO, grid_records, screenshot, served_app
from tests.app.test_walkthrough import FORCED

PRODUCTS = REPO / "sample_traces" / "products-smollm2.jsonl"
LETTERS = REPO / "sample_traces" / "letter_counting-smollm2.jsonl"


def _products_copy(tmp_path):
    """A traces folder holding the products sample and its sidecar: the folder, file, store."""
    folder = tmp_path / "traces"
    folder.mkdir()
    for path in (PRODUCTS, analysis_path(PRODUCTS)):
        shutil.copy(path, folder / path.name)
    path = folder / PRODUCTS.name
    return folder, path, analysis_path(path)


def _toggled(browser, url: str, toggle: str, caption: str):
    """The page at ``url``, its step values panel with ``toggle`` on, and the ``caption`` shown."""
    page = browser.new_page(viewport={"width": 1400, "height": 1500})
    page.goto(url)
    panel = page.locator("[data-testid='stExpander']").filter(has_text="Step values").first
    switch = panel.get_by_text(toggle)
    switch.wait_for(timeout=60_000)
    switch.click()
    shown = panel.get_by_text(caption).first
    shown.wait_for(timeout=120_000)
    return page, panel, shown.inner_text()


def test_the_content_that_returns_is_found_stored_and_shown(browser, tmp_path):
    folder, path, store = _products_copy(tmp_path)
    with served_app(folder) as url:
        page, panel, shown = _toggled(
            browser,
            f"{url}/browse?file={path}&trace=1&segment=2",
            "Only rollouts where the content did not return",
            "Removed content returned in",
        )
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


@pytest.mark.timeout(600)  # the app process loads the model and masks every step
def test_which_step_led_to_which_is_found_stored_shown_and_links_to_the_step(
    browser, tmp_path, embedded_backend
):
    """The black-box matrix, then the same trace read inside the embedded model beside it: the
    KL heatmap, the receiver heads and where the two agree, as the library computes them."""
    folder, path, store = _products_copy(tmp_path)
    trace = next(read_traces(path))
    analysis = stored_step_analysis(trace, store, stored_keys(store, trace.trace_id)[-1])
    expected = step_matrix(trace, analysis, similarity=MiniLMSimilarity())  # not stored
    inside = attention_suppression(trace, embedded_backend)
    agreement = instrument_agreement(expected.rows(), inside.kl).caption()
    [first] = expected.led_to(0, 1)
    with served_app(folder) as url:
        page, panel, shown = _toggled(
            browser,
            f"{url}/browse?file={path}&trace=1&segment=0",
            "Which step led to which",
            "Step-to-step matrix:",
        )
        panel.locator("[data-testid='stPlotlyChart']").first.wait_for(timeout=30_000)
        link = panel.get_by_role("button", name=f"step {first.target}: {first.value:+.2f}")
        link.first.wait_for(timeout=30_000)
        panel.get_by_text("Read by the trace's own model (the embedded one).").wait_for()
        panel.get_by_role("button", name="Read it inside the model").click()
        said = panel.get_by_text(re.compile("^(Over [0-9]+ cells in both|Too few cells)"))
        said.wait_for(timeout=300_000)
        assert said.inner_text() == agreement
        panel.locator("[data-testid='stPlotlyChart']").nth(1).wait_for(timeout=30_000)
        table = panel.locator("[data-testid='stDataFrame']").filter(has_text="kurtosis")
        heads = grid_records(table) if inside.receiver_heads else []
        if not inside.receiver_heads:
            panel.get_by_text("No receiver heads: a head's spread is scored").wait_for()
        page.wait_for_timeout(1000)
        screenshot(panel, "step-matrix.png")
        link.first.click()
        page.wait_for_url(f"**segment={first.target}**", timeout=30_000)
        page.close()
    kinds = [json.loads(line)["kind"] for line in store.read_text().splitlines()]
    assert kinds.count("content") == 1  # found by the app, once
    stored = step_matrix(trace, analysis, similarity=MiniLMSimilarity(), store=store)
    assert stored.compared_now == 0 and stored.rows() == expected.rows()
    assert shown == expected.caption()
    listed = [(int(h["layer"]), int(h["head"])) for h in heads]
    assert listed == [(h.layer, h.head) for h in inside.receiver_heads]


@pytest.mark.timeout(600)  # the app process loads the model, then generates, on 2 shared cores
def test_how_on_policy_the_readmes_force_is_before_generate(browser, tmp_path, embedded_backend):
    """The tour's first Force (letter_counting line 14, segment 0) on the embedded model: the
    text is scored in the background before Generate, and the branch records that score."""
    del embedded_backend  # converted once per session; the served app loads it from there
    folder = tmp_path / "traces"
    folder.mkdir()
    shutil.copy(LETTERS, folder / LETTERS.name)
    path = folder / LETTERS.name
    with served_app(folder) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1500})
        page.goto(f"{url}/browse?file={path}&trace=14&segment=0")
        forced = page.get_by_label("Segment 0's new text")
        forced.wait_for(timeout=60_000)
        forced.fill(FORCED)
        forced.press("Control+Enter")
        button = page.get_by_role("button", name="How on-policy is this text?")
        button.wait_for(timeout=30_000)
        button.click()
        scored = page.get_by_text("percentile of 16 continuations of the model's own").first
        scored.wait_for(timeout=300_000)
        shown = scored.inner_text()
        screenshot(page.locator("[data-testid='stMain']"), "on-policy.png")
        page.get_by_role("button", name="Generate").click()
        page.get_by_text("1 branch appended to").first.wait_for(timeout=300_000)
        page.close()
    [branch] = read_branches(path)
    assert branch.parent.intervention == Force(FORCED)
    recorded = OnPolicy.from_record(branch.metadata["on_policy"])
    assert shown.startswith(recorded.summary()) and recorded.samples == 16


@pytest.mark.timeout(600)  # the app's process loads the model cold, then 3 cuts' rollouts
def test_which_step_mattered_under_each_segmenter(browser, tmp_path, embedded_backend):
    """The products sample's stored comparison (steps, sentence, token:16) on characters: the
    boxes open on its segmenters, the chart draws its intervals and the text under its axis, and
    the page says its rollouts are too few to tell; then the third box changed and a run of the
    boxes' segmenters on the embedded model, stored and shown."""
    del embedded_backend  # converted once per session; the served app loads it from there
    folder, path, store = _products_copy(tmp_path)
    trace = next(read_traces(path))
    _, recorded = stored_comparison(store, trace.trace_id)
    with served_app(folder) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1600})
        page.goto(f"{url}/compare?file={path}&trace=1")
        panel = page.locator(".st-key-sg-panel")
        panel.get_by_text("Stored in products-smollm2.analysis.jsonl").wait_for(timeout=60_000)
        page.wait_for_function(  # the boxes open on the segmenters it stored
            "() => [0, 1, 2].map(n => document.querySelector("
            "`.st-key-compare-spec-${n} input`)?.value).join(' ') === 'steps sentence token:16'",
            timeout=30_000,
        )
        panel.get_by_text("under the segmenters above", exact=False).wait_for(timeout=10_000)
        panel.get_by_text("Too few rollouts to tell which step mattered under steps").wait_for(
            timeout=10_000
        )
        chart = panel.locator("[data-testid='stPlotlyChart']").first
        chart.locator("path.yerror").first.wait_for(timeout=30_000)
        sampled = sum(len(v.cuts) - 1 for v in recorded.segmenters)  # the last: the verdict
        assert chart.locator("path.yerror").count() >= sampled  # an interval per value
        assert chart.locator("svg text", has_text="4. 4 * 3 = …").count() >= 1  # text, not offsets
        legend = chart.locator("svg text", has_text="rollouts per boundary").all_text_contents()
        assert legend == [
            "steps (4–6 rollouts per boundary)",
            "sentence (4–8 rollouts per boundary)",
            "token:16 (4–9 rollouts per boundary)",
        ]
        for pair in recorded.pairs():
            panel.get_by_text(pair.summary(), exact=True).wait_for(timeout=10_000)
        assert "the same peak at character 42" in recorded.pairs()[0].summary()
        screenshot(panel, "segmenter-values.png")
        third = page.locator(".st-key-compare-spec-2 input")
        third.fill("line:\\n\\n")
        third.press("Enter")
        panel.get_by_text("not of the segmenters above", exact=False).wait_for(timeout=30_000)
        budget = panel.locator(".st-key-sg-budget input")
        budget.fill("1")  # steps and sentence have theirs stored: one rollout, of line:\\n\\n
        budget.press("Enter")
        panel.get_by_text("up to 1 rollout,", exact=False).first.wait_for(timeout=30_000)
        panel.get_by_role("button", name="Run").click()
        panel.get_by_text("Compared 3 segmenters; stored in").wait_for(timeout=300_000)
        panel.get_by_text("under the segmenters above", exact=False).wait_for(timeout=30_000)
        page.close()
    _, ran = stored_comparison(store, trace.trace_id)
    assert [v.spec for v in ran.segmenters] == ["steps", "sentence", "line:\\n\\n"]
    assert all(v.rollouts > 0 for v in ran.segmenters)
