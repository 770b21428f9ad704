"""Label mode in a real browser (Debian chromium + playwright): switch it on, label 5 steps from
the keyboard (one with a note typed first), and find them in the trace file's labels file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from llenvs.traces import read_labels, read_traces, write_traces
from llenvs.ui.browse import LABEL_ROWS
from llenvs.workbench.models import Settings, save_settings
from tests.app.served_app import IDLE, grid_records, keys_ready, served_app
from tests.app.test_labelling import STEPS, _trace


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("labelling-traces")
    path = folder / "runs.jsonl"
    write_traces(path, [_trace()])
    save_settings(folder, Settings(labeller="ada"))
    with served_app(folder) as url:
        yield url, path


def _selected(page, segment: int) -> None:
    """Wait until label mode says ``segment`` is selected and the app's run has ended."""
    page.get_by_text(f"Labelling segment {segment} of {len(STEPS)}").wait_for(timeout=30_000)
    page.wait_for_selector(IDLE, timeout=30_000)


def test_five_steps_labelled_from_the_keyboard_land_in_the_labels_file(app, browser):
    url, path = app
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    page.goto(f"{url}/browse?file={path}&trace=1&segment=1")
    page.get_by_role("tab", name="Segment 1").wait_for(timeout=30_000)
    page.locator('[data-testid="stButtonGroup"]').get_by_text("Label steps").click()
    _selected(page, 1)
    keys_ready(page, "label-keys")
    page.keyboard.press("f")  # the first error is step 1: step 0 correct
    _selected(page, 2)
    page.keyboard.press("3")
    _selected(page, 3)
    note = page.get_by_role("textbox", name="Note on segment 3")
    note.click()
    note.fill("12, not 13")
    note.press("Tab")  # out of the box: keys typed in it are text, not shortcuts
    page.wait_for_selector(IDLE, timeout=30_000)
    page.keyboard.press("1")
    _selected(page, 4)
    page.keyboard.press("2")
    _selected(page, 5)
    page.keyboard.press("3")  # the last step: it stays selected, its history shows the label
    page.get_by_text("ada: none → +1").wait_for(timeout=30_000)
    page.wait_for_selector(IDLE, timeout=30_000)
    page.close()

    trace_id = next(read_traces(path)).trace_id
    latest = read_labels(path).latest("ada")[trace_id]
    assert {segment: label.label for segment, label in latest.items()} == {
        0: 1,
        1: -1,
        2: 1,
        3: -1,
        4: 0,
        5: 1,
    }
    assert latest[3].note == "12, not 13"
    assert len(read_labels(path).history) == 6  # one line a step, nothing written twice


def _segment(page) -> int:
    return int(parse_qs(urlparse(page.url).query).get("segment", ["0"])[0])


def _settles_on(page, segment: int) -> int:
    """The selected segment once the page has applied a burst's last press, and its run ended.

    Each burst here ends on a segment that neither its start nor any earlier press selects, so
    the URL saying ``segment`` is the event that the last press was applied (presses apply in
    order); a press lost or applied twice never ends there: after 30 s, the segment the idle
    page says is returned as it is.
    """
    try:
        page.wait_for_function(
            "want => new URLSearchParams(location.search).get('segment') === want",
            arg=str(segment),
            timeout=30_000,
        )
    except PlaywrightTimeoutError:
        pass
    page.wait_for_selector(IDLE, timeout=30_000)
    return _segment(page)


def test_every_key_press_counts_in_order_however_quick(app, browser):
    """Four ``j`` 150 ms apart move four segments (three did: a button's shortcut merged the
    presses that came during a run); ``j k k k`` at once ends two back; label keys too."""
    url, path = app
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    page.goto(f"{url}/browse?file={path}&trace=1&segment=0")
    page.get_by_role("tab", name="Segment 0").wait_for(timeout=30_000)
    keys_ready(page, "nav-keys-pnkj")
    for _ in range(4):
        page.keyboard.press("j")
        page.wait_for_timeout(150)  # the presses' pace (a person's), not a wait for the page
    assert _settles_on(page, 4) == 4  # 1, 2, 3, 4
    for key in "jkkk":
        page.keyboard.press(key)
    assert _settles_on(page, 2) == 2  # 5, 4, 3, 2
    page.locator('[data-testid="stButtonGroup"]').get_by_text("Label steps").click()
    _selected(page, 2)
    keys_ready(page, "label-keys")
    page.keyboard.press("k")
    page.keyboard.press("k")
    for key in "231":  # three labels in a burst: each on its own step
        page.keyboard.press(key)
    assert _settles_on(page, 3) == 3  # 1, 0, then labels on 0, 1, 2 selecting 1, 2, 3
    page.close()
    trace_id = next(read_traces(path)).trace_id
    latest = read_labels(path).latest("ada")[trace_id]
    assert {s: latest[s].label for s in (0, 1, 2)} == {0: 0, 1: 1, 2: -1}


def test_paging_keeps_the_selection_and_label_mode_keeps_segment_0_and_the_url(app, browser):
    url, path = app
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    page.goto(f"{url}/browse?file={path}&trace=1&segment=2")
    page.get_by_role("tab", name="Segment 2").wait_for(timeout=30_000)
    page.locator('[data-testid="stButtonGroup"]').get_by_text("Label steps").click()
    _selected(page, 2)
    keys_ready(page, "label-keys")
    assert "mode=label" in page.url
    page.keyboard.press("2")  # neutral: shown as 0, never +0
    _selected(page, 3)
    rows = _label_rows(page)
    assert [row["#"] for row in rows][:1] == ["0"]  # the window starts at segment 0
    assert next(row for row in rows if row["#"] == "2")["label"] == "0"
    page.reload()  # label mode and the segment come back from the URL
    _selected(page, 3)
    page.close()


def _label_rows(page) -> list[dict[str, str]]:
    """Label mode's rows, once its grid has drawn them."""
    grid = page.locator(f'[class*="st-key-{LABEL_ROWS}"] [data-testid="stDataFrame"]')
    for _ in range(60):
        rows = grid_records(grid.first) if grid.count() else []
        if rows:
            return rows
        page.wait_for_timeout(500)
    raise AssertionError("label mode's rows were never drawn")
