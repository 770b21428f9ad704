"""Label mode in a real browser (Debian chromium + playwright): switch it on, label 5 steps from
the keyboard (one with a note typed first), and find them in the trace file's labels file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from llenvs.traces import read_labels, read_traces, write_traces
from llenvs.ui.settings_store import Settings, save_settings
from tests.app.served_app import IDLE, served_app
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
