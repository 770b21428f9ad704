"""Labelling speed in a real browser: a label key in Browse's label mode against a page rerun.

Run from the repository root::

    .venv/bin/python bench/labelling.py
    .venv/bin/python bench/labelling.py --presses 10 --no-write

The sample's 321-segment Thought Anchors trace (R1-distill reasoning, with its published step
values, so the step values panel draws them) is copied into a temporary traces folder, the
labeller set in its settings, so the sample's own labels file is never touched. The app is
served on 127.0.0.1 as the browser tests serve it (``tests/app/served_app.py``) and driven with
playwright and Debian's chromium (``executable_path=shutil.which("chromium")``; playwright's own
browsers are never installed), in a 1500 × 1200 window. Each press is timed from the key
(``page.keyboard.press``) to what it must show, checked at every animation frame:

* *label key* (label mode, a fragment rerun): the next segment selected (the panel says
  "Labelling segment n+1") and the labelled row showing the new label: its ``label`` cell's
  colour, read from the grid's canvas once the grid has been drawn again since the key (the
  grid is found by its key); keys ``3 3 1 2 3 0 f`` in turn.
* *next segment, label mode* (``j``, the same fragment, nothing written): the next segment
  selected.
* *next segment, whole page* (``j`` with label mode off: the page reruns): the next segment's
  tab shown.

*Done* is the time until the app says its run has ended (``data-test-script-state``): for the
whole page, the rest of the page (the intervention panel) is drawn after the segment shows.
Goal (issue 27): a label key shows its label and selects the next segment within
``GOAL_SECONDS`` (median).

*Bursts* (issue 35: presses were lost while a run was under way): ``j`` four times 150 ms
apart, and ``j j j k k`` as fast as the browser sends them, in each mode, first alone and then
with a second tab of the same browser running an Evaluate job on the embedded model (the app's
one process serving both tabs, on the same cores). A burst is timed from its last press until
the URL names the segment every press together leads to, and checked again once the page has
been idle for ``SETTLE_MS``: a press lost or doubled leaves the page one segment off, so the
presses kept are the presses less the distance from the right segment.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_common import ROOT, browser_page, publish

from llenvs.ui.browse_location import MODE_PARAM
from llenvs.ui.labelling_view import LABEL_PARAM, LABEL_ROWS
from llenvs.ui.segment_table import BEFORE

HEADING = "## Labelling in Browse (`bench/labelling.py`)"
COMMAND = ".venv/bin/python bench/labelling.py"
SAMPLE = ROOT / "sample_traces" / "thought_anchors-r1-distill-llama-8b.jsonl"
SAMPLE_LINE = 3
"""The sample's longest Thought Anchors trace (321 segments) is on this line."""
START = 20
"""The segment the page opens at (a window of rows above it, as in the middle of a trace)."""
KEYS = ("3", "3", "1", "2", "3", "0", "f")
"""The label keys pressed, in turn."""
SHOWN = {"1": "-1", "2": "0", "3": "+1", "0": "", "f": "-1"}
"""What the labelled row's ``label`` cell shows after each key."""
PRESSES = 28
RERUNS = 10
GOAL_SECONDS = 0.2
LABELLER = "bench"
TIMEOUT_MS = 60_000

GRID = f"""() => document.querySelector(
  '[class*="st-key-{LABEL_ROWS}"] [data-testid="stDataFrame"] canvas')"""
"""Label mode's grid's canvas, found by the key it is drawn under (``LABEL_ROWS``)."""

DRAWN = f"""() => {{
  const canvas = ({GRID})();
  if (!canvas || !canvas.getBoundingClientRect().width) return null;
  const d = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  let hash = 0;
  for (let i = 0; i < d.length; i += 4) {{
    hash = (hash * 31 + d[i] + 7 * d[i + 1] + 13 * d[i + 2]) | 0;
  }}
  return hash;
}}"""
"""A fingerprint of what the grid's canvas shows (null before it is drawn)."""

BEFORE_KEY = f"() => {{ window.__drawn = ({DRAWN})(); }}"
"""Keep the grid's fingerprint before a key, for ``LABELLED`` to see that the grid has changed."""

LABELLED = f"""([segment, label, row]) => {{
  const said = Array.from(document.querySelectorAll('[data-testid="stMarkdownContainer"] p'))
    .some(p => p.innerText.startsWith(`Labelling segment ${{segment + 1}} of`));
  if (!said) return false;
  if (label === null) return true;
  const canvas = ({GRID})();
  if (!canvas || !canvas.getBoundingClientRect().width) return false;
  if (({DRAWN})() === window.__drawn) return false;  // the grid not drawn again yet
  const tints = {{'-1': [220, 60, 60], '0': [150, 150, 150], '+1': [60, 180, 60]}};
  const near = (d, i, rgb) => rgb.every((c, k) => Math.abs(d[i + k] - (255 + c) / 2) <= 4);
  const scale = canvas.width / canvas.getBoundingClientRect().width;
  const y = Math.round((35 + 35 * row + 17) * scale);
  const d = canvas.getContext('2d').getImageData(0, y, canvas.width, 1).data;
  const found = Object.keys(tints).filter(name => {{  // a cell's fill: a run of pixels
    let run = 0;
    for (let i = 0; i < d.length; i += 4) {{
      run = near(d, i, tints[name]) ? run + 1 : 0;
      if (run >= 12) return true;
    }}
    return false;
  }});
  return label === '' ? found.length === 0 : found.length === 1 && found[0] === label;
}}"""
"""True once segment ``segment + 1`` is selected in label mode and the grid, drawn again since
the key (``BEFORE_KEY``), shows ``label`` on ``segment``'s row, the ``row``-th drawn: its
``label`` cell's colour, read from the grid's canvas (what the eye sees; the grid is found by
its key, not by its copy of its rows for screen readers, which the grid updates up to a few
hundred milliseconds later), no label colour for "" (not checked when None)."""

TAB = """(segment) => Array.from(document.querySelectorAll('[role="tab"]'))
  .some(tab => tab.innerText.trim() === `Segment ${segment}`)"""
"""True once the page shows segment ``segment``'s tab (label mode off)."""

IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'

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

AT = "(segment) => new URLSearchParams(location.search).get('segment') === String(segment)"
"""True once the URL names ``segment`` as the selected one."""

KEYS_READY = """(queue) => Object.entries(window.__llenvsKeyQueues || {})
  .some(([name, q]) => name.startsWith(queue) && !!q.send)"""
"""True once a key queue whose name starts with ``queue`` listens (``llenvs.ui.key_queue``)."""


def copy_sample(folder: Path) -> Path:
    """The sample's 321-segment trace, its step values and a labeller's settings, in ``folder``.

    The trace's line is copied byte for byte (its id unchanged), so the values are its own.
    """
    from llenvs.analysis import analysis_path
    from llenvs.ui.settings_store import Settings, save_settings

    path = folder / "thought_anchors.jsonl"
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    path.write_bytes(lines[SAMPLE_LINE - 1])
    shutil.copy(analysis_path(SAMPLE), analysis_path(path))
    save_settings(folder, Settings(labeller=LABELLER))
    return path


def timed(page: Any, key: str, shown: Callable[[], None]) -> tuple[float, float]:
    """Seconds from pressing ``key`` until ``shown`` returns, and until the run has ended."""
    page.evaluate(BEFORE_KEY)
    started = time.perf_counter()
    page.keyboard.press(key)
    shown()
    seen = time.perf_counter() - started
    page.wait_for_selector(IDLE, timeout=TIMEOUT_MS)
    return seen, time.perf_counter() - started


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


def measure_bursts(folder: Path, path: Path) -> dict[str, Any]:
    """Bursts in both modes, alone and with an Evaluate job running in a second tab."""
    found: dict[str, Any] = {}
    with browser_page(folder) as (page, url):
        second = page.context.browser.new_page()
        for load in ("alone", "job"):
            if load == "job":
                start_job(second, url)
            for mode in ("whole page", "label mode"):
                target = f"{url}/browse?file={path}&trace=1&segment={START}"
                page.goto(target + (f"&{MODE_PARAM}={LABEL_PARAM}" if mode == "label mode" else ""))
                page.wait_for_selector(IDLE, timeout=TIMEOUT_MS)
                queue = "label-keys" if mode == "label mode" else "nav-keys"
                found[f"{mode}, {load}"] = bursts(page, queue)
            if load == "job":
                found["job ran throughout"] = job_running(second)
    return found


def measure(presses: int, reruns: int, bursts_too: bool = True) -> dict[str, Any]:
    """Open the trace, time whole-page reruns, then label keys and moves in label mode."""
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        path = copy_sample(Path(folder))
        with browser_page(Path(folder)) as (page, url):
            page.goto(f"{url}/browse?file={path}&trace=1&segment={START}")
            page.get_by_role("tab", name=f"Segment {START}").wait_for(timeout=TIMEOUT_MS)
            page.wait_for_selector(IDLE, timeout=TIMEOUT_MS)
            page.wait_for_timeout(1000)
            segment = START
            whole = []
            for _ in range(reruns):
                target = segment + 1
                whole.append(
                    timed(
                        page,
                        "j",
                        lambda t=target: page.wait_for_function(
                            TAB, arg=t, polling="raf", timeout=TIMEOUT_MS
                        ),
                    )
                )
                segment = target
            switch = page.locator('[data-testid="stButtonGroup"]').get_by_text("Label steps")
            switch.click()
            page.get_by_text(f"Labelling segment {segment} of").wait_for(timeout=TIMEOUT_MS)
            page.wait_for_selector(IDLE, timeout=TIMEOUT_MS)
            page.wait_for_timeout(1000)
            labelled = []
            for number in range(presses):
                key = KEYS[number % len(KEYS)]
                labelled.append(
                    timed(
                        page,
                        key,
                        lambda s=segment, k=key: page.wait_for_function(
                            LABELLED,
                            arg=[s, SHOWN[k], BEFORE - 1],
                            polling="raf",
                            timeout=TIMEOUT_MS,
                        ),
                    )
                )
                segment += 1
            moves = []
            for _ in range(reruns):
                moves.append(
                    timed(
                        page,
                        "j",
                        lambda s=segment: page.wait_for_function(
                            LABELLED, arg=[s, None, 0], polling="raf", timeout=TIMEOUT_MS
                        ),
                    )
                )
                segment += 1
        from llenvs.traces import read_labels

        stored = read_labels(path).latest(LABELLER)
        steps = sum(len(found) for found in stored.values())
        burst_results = measure_bursts(Path(folder), path) if bursts_too else {}
    return {
        "bursts": burst_results,
        "whole": whole,
        "labelled": labelled,
        "moves": moves,
        "labelled_steps": steps,
        "load": load,
    }


def section(result: dict[str, Any]) -> str:
    """The markdown section of one run's timings."""

    def row(name: str, times: list[tuple[float, float]]) -> str:
        seen = [t[0] * 1000 for t in times]
        done = [t[1] * 1000 for t in times]
        return (
            f"| {name} | {len(times)} | {statistics.median(seen):.0f} | {min(seen):.0f}–"
            f"{max(seen):.0f} | {statistics.median(done):.0f} |"
        )

    label = statistics.median(t[0] for t in result["labelled"])
    page = statistics.median(t[0] for t in result["whole"])
    lines = [
        HEADING,
        "",
        f"Command: `{COMMAND}` — run {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC "
        f"on {platform.machine()}, Python {platform.python_version()}, Debian chromium "
        "(headless) and the app on the same 2 CPU cores, shared with other work (load average "
        f"{result['load']:.1f} when it started).",
        "The sample's 321-segment Thought Anchors trace (with its published step values) in a "
        "temporary copy, opened in Browse at segment "
        f"{START}. *Shown*: from the key press to the page showing its effect (label key: the "
        "labelled row's `label` cell in the label's colour, read from the table's canvas once it "
        "has been drawn again since the key, and the next segment selected; `j`: the next "
        "segment selected), checked at every animation frame. *Done*: until the app's run has "
        "ended. Label keys `3 3 1 2 3 0 f` in turn (each written to the labels file; "
        f"{result['labelled_steps']} steps labelled at the end); the whole-page rerun is `j` "
        "with label mode off, on the same trace, in the same browser.",
        "",
        "| press | presses | shown, median (ms) | shown, range (ms) | done, median (ms) |",
        "| --- | --- | --- | --- | --- |",
        row("label key, label mode (fragment rerun)", result["labelled"]),
        row("`j`, label mode (fragment rerun)", result["moves"]),
        row("`j`, label mode off (whole-page rerun)", result["whole"]),
        "",
        f"Goal (issue 27): a label key shows its label and selects the next segment within "
        f"{GOAL_SECONDS * 1000:.0f} ms (median). Here: {label * 1000:.0f} ms "
        f"({'met' if label <= GOAL_SECONDS else 'not met'}), ×{page / label:.1f} faster than "
        f"the whole-page rerun's {page * 1000:.0f} ms.",
    ]
    if result["bursts"]:
        lines += ["", *burst_lines(result["bursts"])]
    return "\n".join(lines) + "\n"


def burst_lines(found: dict[str, Any]) -> list[str]:
    """The bursts' table: presses kept, bursts that end on the right segment, median time."""
    lines = [
        f"Bursts (issue 35), each pressed {BURSTS} times in each mode from segment {START}, "
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
    for load in ("alone", "job"):
        for mode in ("whole page", "label mode"):
            for name, runs in found[f"{mode}, {load}"].items():
                kept = sum(run["kept"] for run in runs)
                presses = sum(run["presses"] for run in runs)
                right = sum(run["kept"] == run["presses"] for run in runs)
                shown = [run["seconds"] * 1000 for run in runs if run["seconds"] is not None]
                median = f"{statistics.median(shown):.0f}" if shown else "never"
                tab = "Evaluate running" if load == "job" else "none"
                lines.append(
                    f"| {name} | {mode} | {tab} | {kept}/{presses} | {right}/{len(runs)} "
                    f"| {median} |"
                )
    return lines


def main() -> None:
    """Parse the arguments, measure, print the section and write it unless ``--no-write``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=PRESSES, help="label keys pressed")
    parser.add_argument("--reruns", type=int, default=RERUNS, help="j presses, each mode")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--no-bursts", action="store_true", help="skip the bursts")
    parser.add_argument("--json", action="store_true", help="also print the raw timings")
    args = parser.parse_args()
    result = measure(args.presses, args.reruns, bursts_too=not args.no_bursts)
    if args.json:
        print(json.dumps(result), file=sys.stderr)
    publish(HEADING, section(result), write=not args.no_write)


if __name__ == "__main__":
    main()
