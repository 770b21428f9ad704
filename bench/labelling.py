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

*Bursts* of presses are measured by ``key_bursts.py`` in the same run.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_common import IDLE, ROOT, browser_page, publish
from key_bursts import burst_lines, measure_bursts

from llenvs.ui.browse import LABEL_ROWS
from llenvs.workbench import BEFORE

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


def copy_sample(folder: Path) -> Path:
    """The sample's 321-segment trace, its step values and a labeller's settings, in ``folder``.

    The trace's line is copied byte for byte (its id unchanged), so the values are its own.
    """
    from llenvs.analysis import analysis_path
    from llenvs.workbench.models import Settings, save_settings

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
        burst_results = measure_bursts(Path(folder), path, START) if bursts_too else {}
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
        lines += ["", *burst_lines(result["bursts"], START)]
    return "\n".join(lines) + "\n"


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
