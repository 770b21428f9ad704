"""Bursts of key presses in Browse, in a real browser: every press kept, in order.

Run by ``bench/labelling.py``, which publishes the table with its own.

*Bursts* (issue 35: presses were lost while a run was under way): ``j`` four times 150 ms
apart, and ``j j j k k`` as fast as the browser sends them, in each mode, first alone and then
with a second tab of the same browser running an Evaluate job on the embedded model (the app's
one process serving both tabs, on the same cores). A burst is timed from its last press until
the URL names the segment every press together leads to, and checked again once the page has
been idle for ``SETTLE_MS``: a press lost or doubled leaves the page one segment off, so the
presses kept are the presses less the distance from the right segment.
"""

from __future__ import annotations

import re
import statistics
import time
from pathlib import Path
from typing import Any

from bench_common import IDLE, browser_page

from llenvs.ui.browse import LABEL_PARAM
from llenvs.workbench import MODE_PARAM

TIMEOUT_MS = 60_000
BURSTS = 5
"""Each burst is pressed this many times, in each mode and load."""
BURST_KEYS = {"j ×4, 150 ms apart": ("jjjj", 150, 4), "j j j k k, at once": ("jjjkk", 0, 1)}
"""Each burst's keys, the pause between them (ms) and the segments they move, all together."""
BURST_TIMEOUT_MS = 20_000
"""How long a burst may take to reach its segment before it counts as never reaching it."""
SETTLE_MS = 1500
"""How long the page stays idle on the burst's segment before it counts as settled there."""
JOB_TASKS = 60
"""The second tab's Evaluate job: this many leg_counting tasks, more than the bursts outlast."""
JOB = "job"
LOADS = ("alone", JOB)
"""Bursts alone, then with the Evaluate job running in a second tab."""
MODES = {
    "whole page": ("", "nav-keys"),
    "label mode": (f"&{MODE_PARAM}={LABEL_PARAM}", "label-keys"),
}
"""Each mode: what its URL adds, and the start of its key queue's name."""

AT = "(segment) => new URLSearchParams(location.search).get('segment') === String(segment)"
"""True once the URL names ``segment`` as the selected one."""

KEYS_READY = """(queue) => Object.entries(window.__llenvsKeyQueues || {})
  .some(([name, q]) => name.startsWith(queue) && !!q.send)"""
"""True once a key queue whose name starts with ``queue`` listens (``llenvs.ui.common``)."""


def selected(page: Any) -> int:
    """The segment the URL names as selected."""
    return int(page.evaluate("() => new URLSearchParams(location.search).get('segment')"))


def burst(page: Any, keys: str, pause_ms: int, moves: int) -> dict[str, Any]:
    """Press ``keys`` ``pause_ms`` apart and time the page until it shows their effect.

    The time runs from the last press until the URL names the segment ``moves`` further on
    (None if it never does within ``BURST_TIMEOUT_MS``); the presses kept are read from the
    segment the page settles on.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.wait_for_selector(IDLE, timeout=TIMEOUT_MS)
    start = selected(page)
    for number, key in enumerate(keys):
        if number and pause_ms:
            page.wait_for_timeout(pause_ms)
        page.keyboard.press(key)
    pressed = time.perf_counter()
    try:
        page.wait_for_function(AT, arg=start + moves, polling="raf", timeout=BURST_TIMEOUT_MS)
        seconds: float | None = time.perf_counter() - pressed
    except PlaywrightTimeout:  # a press lost: the page never gets there (counted below)
        seconds = None
    while True:  # settled: idle on the same segment for SETTLE_MS
        page.wait_for_selector(IDLE, timeout=TIMEOUT_MS)
        before = selected(page)
        page.wait_for_timeout(SETTLE_MS)
        if page.locator(IDLE).count() and selected(page) == before:
            break
    off = abs(selected(page) - (start + moves))
    return {"presses": len(keys), "kept": len(keys) - off, "seconds": seconds}


def start_job(page: Any, url: str) -> None:
    """Run Evaluate on the embedded model in ``page``, and wait until its first task is done."""
    page.goto(f"{url}/evaluate")
    tasks = page.get_by_role("textbox", name="Tasks (a count, a list or ranges)")
    tasks.wait_for(timeout=TIMEOUT_MS)
    tasks.fill(str(JOB_TASKS))
    tasks.press("Enter")
    page.wait_for_selector(IDLE, timeout=TIMEOUT_MS)
    page.get_by_role("button", name="Run").click()
    page.get_by_text(re.compile(rf"[1-9]\d* of {JOB_TASKS} tasks done")).first.wait_for(
        timeout=600_000
    )


def job_running(page: Any) -> bool:
    """Whether the Evaluate job in ``page`` still runs (its Stop button is shown)."""
    return bool(page.get_by_role("button", name="Stop").count())


def bursts(page: Any, queue: str) -> dict[str, list[dict[str, Any]]]:
    """Every burst, ``BURSTS`` times each, once the key queue ``queue`` listens."""
    page.wait_for_function(KEYS_READY, arg=queue, timeout=TIMEOUT_MS)
    found: dict[str, list[dict[str, Any]]] = {}
    for name, (keys, pause_ms, moves) in BURST_KEYS.items():
        found[name] = [burst(page, keys, pause_ms, moves) for _ in range(BURSTS)]
    return found


def measure_bursts(folder: Path, path: Path, start: int) -> dict[str, Any]:
    """Bursts in both modes, alone and with an Evaluate job running in a second tab.

    From segment ``start`` of the first trace of ``path``, served from ``folder``.
    """
    found: dict[str, Any] = {}
    with browser_page(folder) as (page, url):
        second = page.context.browser.new_page()
        for load in LOADS:
            if load == JOB:
                start_job(second, url)
            for mode, (mode_param, queue) in MODES.items():
                page.goto(f"{url}/browse?file={path}&trace=1&segment={start}{mode_param}")
                page.wait_for_selector(IDLE, timeout=TIMEOUT_MS)
                found[f"{mode}, {load}"] = bursts(page, queue)
            if load == JOB:
                found["job ran throughout"] = job_running(second)
    return found


def burst_lines(found: dict[str, Any], start: int) -> list[str]:
    """The bursts' table: presses kept, bursts that end on the right segment, median time."""
    lines = [
        f"Bursts (issue 35), each pressed {BURSTS} times in each mode from segment {start}, "
        "first alone and then with a second tab of the same browser running Evaluate on the "
        f"embedded model ({JOB_TASKS} leg_counting tasks; still running when the last burst "
        f"ended: {'yes' if found['job ran throughout'] else 'no'}). *Kept*: the presses less "
        "the distance between the segment the page settled on (idle for "
        f"{SETTLE_MS} ms) and the one every press together leads to. *Shown*: from the last "
        "press until the URL names that segment.",
        "",
        "| burst | mode | second tab | presses kept | bursts ending right | shown, median (ms) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for load in LOADS:
        for mode in MODES:
            for name, runs in found[f"{mode}, {load}"].items():
                kept = sum(run["kept"] for run in runs)
                presses = sum(run["presses"] for run in runs)
                right = sum(run["kept"] == run["presses"] for run in runs)
                shown = [run["seconds"] * 1000 for run in runs if run["seconds"] is not None]
                median = f"{statistics.median(shown):.0f}" if shown else "never"
                tab = "Evaluate running" if load == JOB else "none"
                lines.append(
                    f"| {name} | {mode} | {tab} | {kept}/{presses} | {right}/{len(runs)} "
                    f"| {median} |"
                )
    return lines
