"""The workbench in a real browser (Debian chromium + playwright): open a trace, click a
segment in the chart and in the list, use the keyboard, switch to the comparison page; HTML in
a trace shows as text. With ``LLENVS_SCREENSHOTS=1`` it saves the documentation's screenshots
under docs/screenshots/."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from llenvs.ui.common import TEXT_CLASS
from tests.app.conftest import SCRIPT, make_folder
from tests.app.served_app import IDLE, REPO, choose, grid_records, screenshot, served_app

SHOWN_LINE = 20
"""A real response (aime24) whose ArithmeticPRM scores vary: a good picture of a trace."""


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    folder = make_folder(tmp_path_factory.mktemp("browser-traces"))
    with served_app(folder) as url:
        yield url, folder


def tab(page, label: str):
    return page.get_by_role("tab", name=label)


def pick_row(page, segment: int, column: str) -> None:
    """Select segment ``segment`` in Browse's segment list by its cell in ``column``, the row
    found by its ``#``: never by where the row is drawn.

    The list is a canvas grid; its cells are in the page only as the table it keeps for screen
    readers and the keyboard (one ``td`` per cell, by ``aria-colindex``). Focusing a cell there
    selects it as a click on it does, and the app takes the cell's row as the segment.
    """
    page.wait_for_selector(IDLE, timeout=30_000)  # the list drawn for the segment selected now
    grid = page.locator("[data-testid='stDataFrame']").filter(
        has=page.locator("th", has_text=re.compile(r"^cumulative$"))
    )
    number, wanted = (
        grid.locator("th")
        .filter(has_text=re.compile(f"^{re.escape(name)}$"))
        .get_attribute("aria-colindex")
        for name in ("#", column)
    )
    row = grid.locator("tbody tr").filter(
        has=page.locator(f"td[aria-colindex='{number}']", has_text=re.compile(f"^{segment}$"))
    )
    row.locator(f"td[aria-colindex='{wanted}']").focus()


def test_browse_click_chart_and_list_then_compare(app, browser):
    url, folder = app
    page = browser.new_page(viewport={"width": 1500, "height": 1250})
    path = folder / "imported-real_responses.jsonl"
    page.goto(f"{url}/browse?file={path}&trace={SHOWN_LINE}&segment=0")
    page.get_by_text(f"line {SHOWN_LINE}", exact=False).filter(visible=True).first.wait_for(
        timeout=30_000
    )
    tab(page, "Segment 0").wait_for(timeout=30_000)

    # Click over segment 6 (ArithmeticPRM 0.0) in the chart: its column, drawn over the marks.
    chart = page.locator("[data-testid='stVegaLiteChart']").first
    column = chart.locator("[aria-label='segment 6']")
    column.wait_for(timeout=30_000)
    column.click()
    tab(page, "Segment 6").wait_for(timeout=30_000)
    assert re.search(r"segment=6", page.url)

    # Pick segment 2's row in the segment list by its number, then segment 4's by its text (a
    # cell of any column selects its row), then segment 2 again.
    pick_row(page, 2, "#")
    tab(page, "Segment 2").wait_for(timeout=30_000)
    pick_row(page, 4, "text")
    tab(page, "Segment 4").wait_for(timeout=30_000)
    assert re.search(r"segment=4", page.url)
    pick_row(page, 2, "#")
    tab(page, "Segment 2").wait_for(timeout=30_000)

    # Next segment from the keyboard (j), then the picture for the tour.
    page.locator("body").press("j")
    tab(page, "Segment 3").wait_for(timeout=30_000)
    screenshot(page, "browse.png", full_page=True)

    # Switch to the comparison page by the trace's own link: it compares the same trace.
    page.get_by_role("link", name="Compare segmenters on this trace").click()
    page.get_by_text(f"line {SHOWN_LINE} (aime24").wait_for(timeout=30_000)
    page.get_by_text("Aligned cuts").wait_for(timeout=30_000)
    page.get_by_text("Boundary agreement").wait_for(timeout=30_000)
    screenshot(page, "compare.png", full_page=True)
    page.close()


def test_html_in_a_trace_is_shown_as_text_never_run(app, browser):
    url, folder = app
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(f"{url}/browse?file={folder / 'html.jsonl'}&segment=1")
    tab(page, "Segment 1").wait_for(timeout=30_000)
    # The segment's own text block: the data grid keeps hidden copies of its cells for screen
    # readers, and the intervention panel's force box holds the same text as its value.
    shown = page.locator(f"div.{TEXT_CLASS}").filter(has_text=SCRIPT).first
    shown.wait_for(timeout=30_000)
    assert shown.text_content() == f"The page says {SCRIPT} here. "  # every character, as text
    tab(page, "Raw response (whitespace shown)").click()
    page.get_by_text("<b>bold?</b>", exact=False).filter(visible=True).first.wait_for(
        timeout=30_000
    )
    page.wait_for_timeout(1000)
    assert dialogs == []
    assert page.locator("script", has_text="alert(1)").count() == 0
    assert page.locator("b", has_text="bold?").count() == 0
    page.close()


def test_home_shows_where_traces_come_from(browser):
    """Home on the sample traces, as ``make run`` opens it: the folder shown relative."""
    with served_app(REPO / "sample_traces") as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        page.goto(url)
        page.get_by_text("Traces folder:").filter(visible=True).first.wait_for(timeout=30_000)
        page.get_by_text("leg_counting-smollm2.jsonl").filter(visible=True).first.wait_for(
            timeout=30_000
        )
        assert page.get_by_text("sample_traces", exact=True).count() >= 1
        screenshot(page, "home.png", full_page=True)
        page.close()


def test_step_values_of_a_sample_trace(browser):
    """The stored step values of the products sample: the caption its stored result gives (the
    run and the top steps) and one value bar per boundary that has a value."""
    from llenvs.analysis import CHANCES_CHECKED, analysis_path
    from llenvs.traces import read_traces
    from llenvs.ui.browse import result_keys, shown_values
    from llenvs.ui.common import stamp

    path = REPO / "sample_traces" / "products-smollm2.jsonl"
    trace = next(read_traces(path))
    store = str(analysis_path(path))
    [*_, key] = result_keys(store, trace.trace_id, stamp(store))
    shown = shown_values(store, trace.trace_id, json.dumps(key, sort_keys=True), (0, 0), trace)
    assert "most important steps:" in shown.caption
    valued = int(shown.rows["value"].notna().sum())  # boundaries with a value: one bar each
    with served_app(REPO / "sample_traces") as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1300})
        page.goto(f"{url}/browse?file={path}&trace=1&segment=3")
        caption = f"{shown.caption} ({CHANCES_CHECKED})"  # where the chances are checked
        page.get_by_text(caption, exact=True).filter(visible=True).first.wait_for(timeout=60_000)
        panel = page.locator("[data-testid='stExpander']").filter(has_text="Step values").first
        panel.locator("[data-testid='stVegaLiteChart']").first.wait_for(timeout=30_000)
        values = panel.locator("[aria-label^='v before segment ']")  # one bar per valued boundary
        page.wait_for_function(
            "([e, n]) => e.querySelectorAll(\"[aria-label^='v before segment ']\").length === n",
            arg=[panel.element_handle(), valued],
            timeout=30_000,
        )
        assert len(shown.rows) == len(trace.segments) + 1  # the end's boundary too
        assert values.count() == valued > 0
        screenshot(panel, "step-values.png")
        page.close()


def test_a_321_step_thought_anchors_trace_filters_by_tag_and_follows_a_dependency(
    browser,
):
    """The sample's long R1-distill trace: filter the rows by a tag, then select a dependency."""
    with served_app(REPO / "sample_traces") as url:
        page = browser.new_page(viewport={"width": 1500, "height": 1400})
        path = REPO / "sample_traces" / "thought_anchors-r1-distill-llama-8b.jsonl"
        page.goto(f"{url}/browse?file={path}&trace=3&segment=158")
        tab(page, "Segment 158").wait_for(timeout=60_000)
        page.get_by_text("Summary: identify lcm=288").filter(visible=True).first.wait_for(
            timeout=30_000
        )
        screenshot(page, "browse-r1.png")  # the README's picture: the page as it opens
        tags = page.locator("[data-testid='stMultiSelect']").filter(has_text="Function tags")
        tags.first.click()
        page.get_by_role("option", name="self_checking (7)").click(timeout=30_000)
        page.get_by_text("7 of 321 segments tagged self_checking").filter(
            visible=True
        ).first.wait_for(timeout=30_000)
        page.keyboard.press("Escape")  # close the tag list (it hides the page from a reader)
        page.get_by_role("button", name=re.compile(r"^151 · ")).click(timeout=30_000)
        tab(page, "Segment 151").wait_for(timeout=30_000)
        assert re.search(r"segment=151", page.url)
        page.get_by_text("7 of 321 segments tagged self_checking").filter(
            visible=True
        ).first.wait_for(timeout=30_000)  # the filter holds as the selection moves
        screenshot(page, "thought-anchors.png", full_page=True)
        page.close()


def test_force_a_segment_and_see_the_branch_beside_its_parent(browser, tmp_path):
    """Select a segment, edit and force it, then the branch beside the original."""
    from llenvs.core import SegmentedEnvironment
    from llenvs.core.registry import environment_registry
    from llenvs.evaluation import replay_trace
    from llenvs.traces import read_branches, write_traces

    # the responses file is the repository's own, named as the app's folder sees it (not a
    # temporary path of the test machine, which the picture below would show)
    responses = "examples/leg_counting_responses.jsonl"
    right = json.loads((REPO / responses).read_text().splitlines()[0])  # task 0, 100 legs
    wrong = right.replace("2 × 4 = 8.", "2 × 4 = 6.").replace("+ 8 + 44 = 100", "+ 6 + 44 = 98")
    wrong = wrong.replace("<answer>100</answer>", "<answer>98</answer>")
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=100, seed=42)
    parent = replay_trace(SegmentedEnvironment(base, "sentence"), 0, wrong, model="scripted")
    assert parent.segments[2].text == "Giraffes have 4 legs, so 2 × 4 = 6. "
    folder = tmp_path / "traces"
    folder.mkdir()
    write_traces(folder / "lc.jsonl", [parent])
    with served_app(folder) as url:
        page = browser.new_page(viewport={"width": 1500, "height": 1500})
        page.goto(f"{url}/browse?file={folder / 'lc.jsonl'}&trace=1&segment=2")
        tab(page, "Segment 2").wait_for(timeout=30_000)
        page.get_by_text("Intervene on segment 2").wait_for(timeout=30_000)
        model = page.locator("[data-testid='stSelectbox']").filter(has_text="Model")
        model.scroll_into_view_if_needed()
        choose(page, model, re.compile("scripted backend"))
        box = page.get_by_label("Responses file (JSONL)")
        box.fill(responses)
        box.press("Enter")
        forced = page.get_by_label("Segment 2's new text")
        forced.wait_for(timeout=30_000)
        forced.fill("Giraffes have 4 legs, so 2 × 4 = 8. ")
        forced.press("Control+Enter")
        page.wait_for_timeout(1000)
        page.get_by_role("button", name="Generate").click()
        page.get_by_text("1 branch appended to lc.branches.jsonl").wait_for(timeout=60_000)
        page.get_by_text("Compare with the parent").filter(visible=True).first.wait_for(
            timeout=30_000
        )
        page.wait_for_timeout(1500)
        # the picture for the tour: the branch beside its parent
        page.get_by_text("1 branch appended to lc.branches.jsonl").evaluate(
            "e => e.scrollIntoView()"
        )
        page.wait_for_timeout(500)
        assert str(tmp_path) not in page.locator("body").inner_text()  # no machine path shown
        screenshot(page, "intervene.png")
        # the branch aligned with its parent: the kept prefix folded, the forced segment and the
        # total the model wrote after it marked, each with its changed characters
        aligned = _aligned_rows(page, "parent")
        assert [(row["op"], row["note"]) for row in aligned] == [
            ("equal", "kept"),
            ("changed", "intervention"),
            ("equal", ""),
            ("changed", "first difference"),
        ]
        assert aligned[1]["branch"] == "Giraffes have 4 legs, so 2 × 4 = {+8+}."
        assert "+ 44 = {+100+}." in aligned[3]["branch"] and "[-98-]" in aligned[3]["parent"]
        # the picture: the branches' heading down to the aligned table's end
        top = page.get_by_text("Branches of this trace (1)").bounding_box()
        end = page.get_by_role("button", name="Re-run this branch from its record").bounding_box()
        grid = page.locator("[data-testid='stDataFrame']").last.bounding_box()
        assert top is not None and end is not None and grid is not None
        x, y = top["x"] - 16, top["y"] - 16
        edge = grid["x"] + grid["width"] + 16
        screenshot(
            page,
            "aligned-diff.png",
            clip={"x": x, "y": y, "width": edge - x, "height": end["y"] - y},
        )
        # a second branch in a row: the select above the table names the branch the table
        # compares, the one just made (it named the first one over the second's table)
        page.get_by_text("Feedback", exact=True).click()
        feedback = page.get_by_label("Feedback after segment 2")
        feedback.fill("Check the last multiplication again.")
        feedback.press("Control+Enter")
        page.wait_for_timeout(1000)
        page.get_by_role("button", name="Generate").click()
        page.get_by_text("Branches of this trace (2)").wait_for(timeout=60_000)
        first, second = read_branches(folder / "lc.jsonl")
        label = _selected(page, "Compare with the parent", "#1 ")
        compared = _compared_branch(page, len(second.segments))
        # an on-policy substitute: the model's own closest segment, shown beside the target
        page.get_by_text("Substitute", exact=True).click()
        target = page.get_by_label(re.compile("^Segment 2: a text the model's own segment"))
        target.fill("Giraffes have four legs each, so two of them have 8 legs. ")
        target.press("Control+Enter")
        close = page.get_by_label(re.compile("^similarity"))
        close.fill("0.5")
        close.press("Enter")
        page.wait_for_timeout(1000)
        page.get_by_role("button", name="Generate").click()
        page.get_by_text("Branches of this trace (3)").wait_for(timeout=120_000)
        found = page.get_by_text(re.compile("^Substitute: substitute found in"))
        found.wait_for(timeout=30_000)
        found.evaluate("e => e.scrollIntoView()")
        page.wait_for_timeout(800)
        screenshot(page, "substitute.png")
        shown = found.inner_text()
        page.close()
    *_, third = read_branches(folder / "lc.jsonl")
    assert third.metadata["substitute"]["text"] == "Giraffes have 4 legs, so 2 × 4 = 8. "
    assert third.segments[2].text == third.metadata["substitute"]["text"]
    assert shown.startswith("Substitute: substitute found in 8 of 16 tries: similarity")
    assert first.parent.segment_index == 2 and first.response == right and first.success
    assert label.startswith("#1 feedback after segment 2: 'Check the last multiplication")
    verdict = "succeeded" if second.success else "failed"
    assert label.endswith(f"answer {compared['final answer']} · {verdict}")
    assert len(second.segments) != len(first.segments)  # the table tells the two apart


def _selected(page, name: str, start: str) -> str:
    """The option the select box ``name`` shows, once it starts with ``start`` (polled for
    30 s while the app reruns; then returned whatever it shows)."""
    select = page.locator("[data-testid='stSelectbox']").filter(has_text=name)
    for _ in range(60):
        shown = select.get_by_role("combobox").input_value()
        if shown.startswith(start):
            break
        page.wait_for_timeout(500)
    return shown


def _aligned_rows(page, side: str) -> list[dict[str, str]]:
    """The rows of the aligned table (the grid with an ``op`` and a ``{side} #`` column), once
    drawn (polled for 30 s)."""
    grids = page.locator("[data-testid='stDataFrame']")
    for _ in range(60):
        for number in range(grids.count()):
            rows = grid_records(grids.nth(number))
            if rows and "op" in rows[0] and f"{side} #" in rows[0]:
                return rows
        page.wait_for_timeout(500)
    raise AssertionError("the aligned table was never drawn")


def _compared_branch(page, segments: int) -> dict[str, str]:
    """The branch column of the outcome table under *Compare with the parent*, by row, once
    it shows a branch of ``segments`` segments (polled: the grid draws after the rerun)."""
    grids = page.locator("[data-testid='stDataFrame']")
    seen: list[dict[str, str]] = []
    for _ in range(60):
        for number in range(grids.count()):
            rows = grid_records(grids.nth(number))
            if any(row.get("") == "final answer" for row in rows):
                seen = rows
                branch = {row[""]: row["branch"] for row in rows}
                if branch["segments"] == str(segments):
                    return branch
        page.wait_for_timeout(500)
    raise AssertionError(f"the outcome table never showed the new branch: {seen}")


@pytest.mark.timeout(600)  # the app process loads the model, then generates, on 2 shared cores
def test_new_segments_stream_in_and_stop_keeps_them(browser, tmp_path, embedded_backend):
    """The embedded model continues a sample trace; its segments appear as they come; Stop."""
    from llenvs.traces import read_branches

    del embedded_backend  # converted once for the whole session; the served app loads it too
    folder = tmp_path / "traces"
    folder.mkdir()
    shutil.copy(REPO / "sample_traces" / "leg_counting-smollm2.jsonl", folder / "lc.jsonl")
    with served_app(folder) as url:
        page = browser.new_page(viewport={"width": 1500, "height": 1500})
        page.goto(f"{url}/browse?file={folder / 'lc.jsonl'}&trace=3&segment=1")
        page.get_by_text("Intervene on segment 1").wait_for(timeout=30_000)
        # the force box holds segment 1's own text: the model goes on as it did (greedy)
        page.get_by_role("button", name="Generate").click()
        page.get_by_text("Generating branch of trace").wait_for(timeout=300_000)
        live = page.get_by_text(re.compile(r"[2-9]\d* new segments so far"))
        live.wait_for(timeout=120_000)
        assert page.get_by_role("button", name="Deploy").count() == 0  # toolbarMode minimal
        # the picture for the tour: new segments arriving under the panel, with Stop
        page.get_by_text("Intervene on segment 1").evaluate("e => e.scrollIntoView()")
        screenshot(page, "intervene-live.png")
        page.get_by_role("button", name="Stop").click()
        page.get_by_text(re.compile("Stopped: 1 branch kept, marked truncated")).wait_for(
            timeout=120_000
        )
        page.close()
    [child] = read_branches(folder / "lc.jsonl")
    assert child.metadata["stopped"] and child.metadata["truncated"]
    assert 3 <= len(child.segments) < 11  # kept, forced, what came before the stop; not all


def test_compare_two_runs_and_open_a_disagreement(browser, tmp_path, monkeypatch):
    """Two runs of the same tasks side by side; a task they disagree on opens in Browse."""
    from tests.app.test_compare_runs import write_two_runs

    folder = write_two_runs(tmp_path / "traces")
    with served_app(folder) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        page.goto(f"{url}/compare_runs")
        page.get_by_text("Tasks where they disagree (3)").wait_for(timeout=30_000)
        screenshot(page, "compare-runs.png", full_page=True)
        page.get_by_text("Aligned diff").first.click()  # task 1: a solved it, b did not
        page.get_by_text("line 2 of a.jsonl · b: b, line 2 of b.jsonl").wait_for(timeout=30_000)
        [row] = _aligned_rows(page, "a")
        assert (row["op"], row["note"]) == ("changed", "first difference")
        assert (row["a"], row["b"]) == (
            "I count. <answer>1[-40-]</answer>",
            "I count. <answer>{+-+}1</answer>",
        )
        page.get_by_role("link", name="b: failed (line 2)").click()
        page.get_by_text("leg_counting · task 1 · line 2").wait_for(timeout=30_000)
        page.close()


def test_settings_page_saves_the_defaults(browser, tmp_path):
    folder = tmp_path / "traces"
    folder.mkdir()
    with served_app(folder) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{url}/settings")
        box = page.get_by_label("Segmenter spec")
        box.wait_for(timeout=30_000)
        box.fill("line")
        box.press("Enter")
        page.wait_for_timeout(800)
        page.get_by_role("button", name="Save settings").click()
        page.get_by_text("Saved in traces/llenvs-settings.json").wait_for(timeout=30_000)
        screenshot(page, "settings.png", full_page=True)
        page.close()
    assert '"segmenter": "line"' in (folder / "llenvs-settings.json").read_text()


@pytest.mark.timeout(600)  # the app's process loads the model cold, then runs three tasks
def test_evaluate_three_tasks_then_open_them_in_browse(browser, tmp_path, embedded_backend):
    """A 3-task run of the embedded model from the Evaluate page, watched, then opened."""
    del embedded_backend  # converted once per session; the served app loads it as well
    folder = tmp_path / "traces"
    folder.mkdir()
    with served_app(folder) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1400})
        page.goto(f"{url}/evaluate")
        tasks = page.get_by_role("textbox", name="Tasks (a count, a list or ranges)")
        tasks.wait_for(timeout=30_000)
        tasks.fill("3")
        tasks.press("Enter")
        budget = page.get_by_role("textbox", name="max tokens")
        budget.fill("48")
        budget.press("Enter")
        page.wait_for_timeout(800)
        page.get_by_role("button", name="Run").click()
        page.get_by_text(re.compile(r"of 3 tasks done")).first.wait_for(timeout=300_000)
        page.get_by_text(re.compile(r"Done: 3 tasks in eval-leg_counting-")).wait_for(
            timeout=300_000
        )
        page.get_by_text(re.compile(r"Results: eval-leg_counting-")).wait_for(timeout=30_000)
        screenshot(page, "evaluate.png", full_page=True)
        page.get_by_role("link", name=re.compile(r"Open eval-leg_counting-.* in Browse")).click()
        page.get_by_text("3 of 3 traces match").wait_for(timeout=30_000)
        page.close()
    [results] = folder.glob("eval-leg_counting-*.jsonl")
    assert len(results.read_text().splitlines()) == 3
