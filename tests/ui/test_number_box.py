"""A number box drawn under AppTest: its range in its label, and what it clamps or refuses.

The page below is a box feeding a button and a caption, as every box in the workbench feeds
its action: the button is off while the box refuses, and the caption states the number used.
"""

from __future__ import annotations

import shutil

import pytest
from streamlit.testing.v1 import AppTest

from llenvs.core import SAMPLES
from llenvs.ui.common import box_label
from llenvs.workbench import OutOfRange
from llenvs.workbench.files import TRACES_DIR_ENV

HUGE = "99999999999999999999"


def _page(mode: str, real: bool) -> None:
    """A box, the button it feeds, and the caption of what the button would do."""
    import streamlit as st

    from llenvs.core import SAMPLES
    from llenvs.ui.common import FloatBound, OutOfRange, number_box

    if real:
        entry = number_box(
            "temperature",
            FloatBound("temperature", 0.0, 2.0),
            0.7,
            "box",
            out_of_range=OutOfRange[mode],
        )
    else:
        entry = number_box(
            "samples", SAMPLES, 1, "box", out_of_range=OutOfRange[mode], help="one batch"
        )
    st.button("Go", key="go", disabled=entry.value is None)
    st.markdown(f"plan: {entry.value}")


def _open(mode: OutOfRange, real: bool = False) -> AppTest:
    at = AppTest.from_function(_page, args=(mode.name, real)).run()
    assert not at.exception
    return at


def _plan(at: AppTest) -> str:
    [plan] = [m.value for m in at.markdown if m.value.startswith("plan: ")]
    return plan.removeprefix("plan: ")


def test_the_label_and_help_name_the_range():
    at = _open(OutOfRange.REFUSE)
    box = at.text_input(key="box")
    assert box.label == box_label("samples", SAMPLES) == "samples · 1..16"
    assert box.help == "one batch (1..16)"
    assert box.value == "1" and _plan(at) == "1" and not at.button(key="go").disabled


@pytest.mark.parametrize("typed", [HUGE, "0", "-3", "2.5", "lots", ""])
def test_a_refusing_box_says_why_and_its_button_is_off(typed):
    at = _open(OutOfRange.REFUSE)
    at.text_input(key="box").input(typed).run()
    [error] = [e.value for e in at.error]
    assert error.startswith("samples must be ") and "1..16" in error
    assert error.endswith(f"got {typed}" if typed in (HUGE, "0", "-3") else f"got {typed!r}")
    assert at.button(key="go").disabled and _plan(at) == "None"
    at.text_input(key="box").input("16").run()
    assert not at.error and not at.button(key="go").disabled and _plan(at) == "16"


@pytest.mark.parametrize(("typed", "used"), [(HUGE, 16), ("0", 1)])
def test_a_clamping_box_says_the_number_it_uses_and_the_plan_uses_it(typed, used):
    at = _open(OutOfRange.CLAMP)
    at.text_input(key="box").input(typed).run()
    assert [c.value for c in at.caption] == [f"samples {typed} clamped to {used} (allowed 1..16)"]
    assert not at.error and not at.button(key="go").disabled and _plan(at) == str(used)


def test_a_real_box_clamps_to_its_ends():
    at = _open(OutOfRange.CLAMP, real=True)
    assert at.text_input(key="box").value == "0.7" and _plan(at) == "0.7"
    at.text_input(key="box").input("2.5").run()
    assert [c.value for c in at.caption] == ["temperature 2.5 clamped to 2 (allowed 0..2)"]
    assert _plan(at) == "2.0"
    at.text_input(key="box").input("warm").run()
    assert [e.value for e in at.error] == ["temperature must be a number 0..2, got 'warm'"]
    assert at.button(key="go").disabled


def test_the_move_size_box_clamps_and_the_steps_called_follow_the_number_used(
    tmp_path, monkeypatch
):
    """A box of the app that clamps (Browse's step values, on a sample trace's stored run)."""
    from tests.app.test_pages import REPO, open_page

    for name in ("products-smollm2.jsonl", "products-smollm2.analysis.jsonl"):
        shutil.copy(REPO / "sample_traces" / name, tmp_path / name)
    monkeypatch.setenv(TRACES_DIR_ENV, str(tmp_path))
    at = open_page("browse", file=str(tmp_path / "products-smollm2.jsonl"), trace="1")
    assert at.text_input(key="sv-delta").label == "Move size δ · 0.01..1"
    assert "|Δv| ≥ 0.2" in _called(at)
    at.text_input(key="sv-delta").input("5").run()
    assert not at.exception
    assert "Move size δ 5 clamped to 1 (allowed 0.01..1)" in [c.value for c in at.caption]
    assert "|Δv| ≥ 1" in _called(at)
    at.text_input(key="sv-delta").input("big").run()
    refused = "Move size δ must be a number 0.01..1, got 'big'"
    assert refused in [e.value for e in at.error] and _called(at) is None


def _called(at: AppTest) -> str | None:
    """The caption that says which steps the δ calls moved, if shown."""
    return next((c.value for c in at.caption if "called moved" in c.value), None)


def test_in_a_browser_the_samples_box_refuses_the_issues_number_and_generate_goes_off(browser):
    """Issue 50, item 2, as it was met: in Chromium, 99999999999999999999 typed into Resample's
    samples box (a number input never sent it to the page) is refused, the range named, and
    Generate is off; 3 turns it on again with 3 samples planned."""
    from tests.app.served_app import IDLE, REPO, served_app

    with served_app(REPO / "sample_traces") as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1400})
        path = REPO / "sample_traces" / "leg_counting-smollm2.jsonl"
        page.goto(f"{url}/browse?file={path}&trace=1&segment=1")
        page.get_by_text("Intervene on segment 1").wait_for(timeout=60_000)
        page.wait_for_selector(IDLE, timeout=60_000)  # the page is drawn: a click is heard
        page.get_by_text("Resample", exact=True).click()
        page.get_by_text("generates a new sample from segment 1 on").wait_for(timeout=30_000)
        page.wait_for_selector(IDLE, timeout=60_000)  # the rerun drew the boxes, and ended
        samples = page.get_by_role("textbox", name="samples · 1..16")
        generate = page.get_by_role("button", name="Generate")
        assert generate.is_enabled()
        samples.fill(HUGE)
        samples.press("Enter")
        refused = f"samples must be 1..16 (the resamples of one intervention, generated together), got {HUGE}"  # noqa: E501
        page.get_by_text(f"Generate is off: {refused}.").wait_for(timeout=30_000)
        page.wait_for_selector(IDLE, timeout=60_000)
        assert generate.is_disabled()
        assert page.get_by_text("generates a new sample").count() == 0
        samples.fill("3")
        samples.press("Enter")
        page.get_by_text("keeps segment 0, generates 3 samples from segment 1 on").wait_for(
            timeout=30_000
        )
        page.wait_for_selector(IDLE, timeout=60_000)
        assert generate.is_enabled()
        page.close()


def test_a_task_index_that_is_no_integer_is_refused_not_taken_for_any(tmp_path, monkeypatch):
    """Browse's Task index filter: a text that is no task index says so, and filters nothing."""
    from tests.app.test_pages import REPO, open_page, texts

    name = "leg_counting-smollm2.jsonl"
    shutil.copy(REPO / "sample_traces" / name, tmp_path / name)
    monkeypatch.setenv(TRACES_DIR_ENV, str(tmp_path))
    at = open_page("browse", file=str(tmp_path / name))
    [box] = [b for b in at.sidebar.text_input if b.label == "Task index"]
    box.input("-1").run()
    assert not at.exception
    assert [e.value for e in at.sidebar.error] == [
        f"Task index must be 0..{2**63 - 1} (a task's place in its dataset), got -1: "
        "not filtered by task"
    ]
    assert "4 of 4 traces match" in texts(at)  # as it says: every task
    box.input("two").run()
    assert "got 'two': not filtered by task" in at.sidebar.error[0].value
    box.input("1").run()
    assert not at.sidebar.error and "1 of 4 traces match" in texts(at)
