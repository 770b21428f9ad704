"""A timed walk through the workbench in a real browser, as a new user following the tour.

Run from the repository root::

    .venv/bin/python bench/walkthrough.py
    .venv/bin/python bench/walkthrough.py --timeout 900 --keep

The app is served on 127.0.0.1 (as the browser tests serve it) with a temporary traces folder
that starts as a copy of ``sample_traces/`` (the samples themselves are never written), and
driven with playwright and Debian's chromium (``executable_path=shutil.which("chromium")``;
playwright's own browsers are never installed). The model is the embedded one, the Settings
default. The steps, each timed from the action that starts it to what it waits for:

1. Home: open the app, until the trace list (the files table and its Browse links) shows.
2. Evaluate: reasoning-gym ``products`` with two one-digit factors (size 100, seed 42), the
   default segmenter and PRM, tasks ``3``, max tokens 80, the answer opening ticked; Run, until
   the live view shows a task's first step, then until it says Done; the success it shows.
3. The results' "Open … in Browse" link, until the trace view shows.
4. Compare runs: the new file against ``products-smollm2.jsonl``, until the paired table shows.
5. Browse ``letter_counting-smollm2.jsonl`` trace 14 and ``leg_counting-smollm2.jsonl`` trace 1:
   open the Branch tree, until its branches are listed; their count.

Prints a markdown table: step, seconds, what was seen. The server is stopped at the end, on
failure too (and the page's screenshot and text are saved for the failing step).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench_common import ROOT

COMMAND = ".venv/bin/python bench/walkthrough.py"
"""The browser tests' launch flags (``tests/app/test_browser.py``)."""
DATASET = "products"
OPTIONS = '{"min_terms": 2, "max_terms": 2, "min_digits": 1, "max_digits": 1}'
TASKS = "3"
MAX_TOKENS = "80"
OTHER_RUN = "products-smollm2.jsonl"
BRANCHED = (("letter_counting-smollm2.jsonl", 14), ("leg_counting-smollm2.jsonl", 1))
"""(file, line) of the traces whose branch trees are opened."""

Row = tuple[str, float, str]


@contextmanager
def served(traces: Path, timeout: float) -> Iterator[str]:
    """The app served on a free loopback port with ``traces`` as its folder; always stopped."""
    sys.path.insert(0, str(ROOT))
    from tests.app.served_app import served_app

    with served_app(traces, timeout=timeout) as url:
        yield url


def grid_rows(grid: Any) -> list[list[str]]:
    """The cells of a Streamlit dataframe, from the copy its grid keeps for screen readers."""
    rows: list[list[str]] = grid.evaluate(
        """e => Array.from(e.querySelectorAll('table tr')).map(
               r => Array.from(r.querySelectorAll('th,td')).map(c => c.innerText.trim()))"""
    )
    return [row for row in rows if any(row)]


def grid_records(grid: Any) -> list[dict[str, str]]:
    """The dataframe's rows as dicts keyed by its header (the first row)."""
    rows = grid_rows(grid)
    if not rows:
        return []
    header, *body = rows
    return [dict(zip(header, row, strict=False)) for row in body]


def wait_until(check: Callable[[], Any], timeout: float, what: str) -> Any:
    """Poll ``check`` until it returns something truthy; that value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            found = check()
        except Exception:  # the page redraws under us: try again
            found = None
        if found:
            return found
        time.sleep(0.2)
    raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")


def settle(page: Any, timeout: float) -> float:
    """Wait until the app has finished its run (no element stale, no running icon); when."""
    quiet: list[float] = []

    def calm() -> bool:
        busy = page.locator(
            "[data-stale='true'], [data-testid='stStatusWidgetRunningIcon']"
        ).count()
        if busy:
            quiet.clear()
        else:
            quiet.append(time.perf_counter())
        return len(quiet) >= 4  # quiet for 4 polls in a row (about 0.8 s)

    wait_until(calm, timeout, "the app to finish its run")
    return quiet[0]


def pick_option(page: Any, box: Any, option: str) -> None:
    """Choose ``option`` in a Streamlit selectbox or multiselect ``box`` by typing it."""
    box.get_by_role("combobox").click()
    box.get_by_role("combobox").fill(option)
    page.get_by_role("option", name=option, exact=True).click(timeout=30_000)


def walk(page: Any, url: str, timeout: float, rows: list[Row]) -> None:
    """The five steps of the module's docstring; each appends its rows to ``rows``."""
    ms = int(timeout * 1000)

    # 1. Home.
    started = time.perf_counter()
    page.goto(url)
    page.get_by_text("Traces folder:").filter(visible=True).first.wait_for(timeout=ms)
    link = page.get_by_role("link", name=f"Browse {OTHER_RUN}")
    link.wait_for(timeout=ms)
    home_grid = page.locator("[data-testid='stDataFrame']").first
    files = wait_until(lambda: grid_records(home_grid), timeout, "the trace files table")
    seconds = time.perf_counter() - started
    total = sum(int(r.get("traces", "0") or 0) for r in files)
    rows.append(("1. Home: trace list", seconds, f"{len(files)} files, {total} traces listed"))

    # 2. Evaluate: the form, then Run.
    page.get_by_role("link", name="Evaluate").first.click()
    dataset = page.locator("[data-testid='stSelectbox']").filter(has_text="Dataset")
    dataset.first.wait_for(timeout=ms)
    pick_option(page, dataset.first, DATASET)
    page.wait_for_timeout(800)
    for label, value in (
        ("Dataset options (JSON)", OPTIONS),
        ("Tasks (a count, a list or ranges)", TASKS),
    ):
        box = page.get_by_role("textbox", name=label)
        box.fill(value)
        box.press("Enter")
        page.wait_for_timeout(800)
    budget = page.get_by_role("spinbutton", name="max tokens")
    budget.fill(MAX_TOKENS)
    budget.press("Enter")
    page.wait_for_timeout(800)
    opening = page.get_by_role("checkbox", name="Open the answer when a response ends without one")
    opening.check(force=True)
    page.wait_for_timeout(800)
    size = page.get_by_role("spinbutton", name="size", exact=True).input_value()
    seed = page.get_by_role("spinbutton", name="seed", exact=True).input_value()
    segmenter = page.get_by_role("textbox", name="Segmenter spec").input_value()
    model = page.get_by_text(re.compile(r"^Model: ")).first.inner_text().split(" — ")[0]
    started = time.perf_counter()
    page.get_by_role("button", name="Run", exact=True).click()
    live = page.get_by_text(re.compile(r"of 3 tasks done")).first
    live.wait_for(timeout=ms)
    live_grid = page.locator("[data-testid='stDataFrame']").first

    def first_step() -> str | None:
        for record in grid_records(live_grid):
            if (record.get("steps") or "0") not in ("0", ""):
                return f"task {record.get('task')}: {record.get('steps')} steps, {record['status']}"
        return None

    seen = wait_until(first_step, timeout, "the first step in the live view")
    rows.append(
        (
            "2a. Evaluate: Run → first step shown (within 2b)",
            time.perf_counter() - started,
            f"{DATASET} (size {size}, seed {seed}, {OPTIONS}), segmenter `{segmenter}`, "
            f"tasks {TASKS}, max tokens {MAX_TOKENS}, answer opening on; {model}; {seen}",
        )
    )
    last_caption = [""]

    def done() -> str | None:
        captions = page.get_by_text(re.compile(r"of 3 tasks done")).all_inner_texts()
        if captions:
            last_caption[0] = captions[0]
        texts = page.get_by_text(re.compile(r"^Done: 3 tasks in eval-")).all_inner_texts()
        return texts[0] if texts else None

    outcome = wait_until(done, timeout, "Done")
    seconds = time.perf_counter() - started
    results = page.get_by_text(re.compile(r"Results: eval-")).first
    results.wait_for(timeout=ms)
    name = results.inner_text().removeprefix("Results: ").strip()
    summary_grid = page.locator("[data-testid='stDataFrame']").first
    summary = wait_until(lambda: grid_records(summary_grid), timeout, "the results table")[0]
    success = summary.get("success (95% interval)", "?")
    rows.append(
        (
            "2b. Evaluate: Run → Done",
            seconds,
            f"“{outcome}”; success {success}; last live caption: “{last_caption[0]}”",
        )
    )

    # 3. Open the results in Browse.
    started = time.perf_counter()
    page.get_by_role("link", name=f"Open {name} in Browse").click()
    page.get_by_text("3 of 3 traces match").wait_for(timeout=ms)
    header = page.get_by_text(re.compile(r"^products · task \d+ · line \d+$")).first
    header.wait_for(timeout=ms)
    page.get_by_role("tab", name="Segment 0").wait_for(timeout=ms)
    rows.append(
        (
            "3. Open … in Browse → trace view",
            time.perf_counter() - started,
            f"“3 of 3 traces match”; {header.inner_text()}, segment 0 shown",
        )
    )

    # 4. Compare runs: the new file and the sample products run.
    page.get_by_role("link", name="Compare runs").first.click()
    chooser = page.locator("[data-testid='stMultiSelect']").first
    chooser.wait_for(timeout=ms)
    started = time.perf_counter()
    clear = chooser.get_by_role("button", name=re.compile("Clear all", re.I))
    if clear.count():
        clear.first.click()
    else:  # remove the default choices one by one
        while chooser.locator("[data-baseweb='tag'] [role='presentation']").count():
            chooser.locator("[data-baseweb='tag'] [role='presentation']").first.click()
            page.wait_for_timeout(300)
    page.wait_for_timeout(800)
    pick_option(page, chooser, name)
    page.wait_for_timeout(800)
    pick_option(page, chooser, OTHER_RUN)
    page.keyboard.press("Escape")
    stem = Path(name).stem
    paired_heading = page.get_by_text(f"{stem} against the others")
    paired_heading.wait_for(timeout=ms)
    grids = page.locator("[data-testid='stDataFrame']")

    def paired() -> dict[str, str] | None:
        for number in range(grids.count()):
            records = grid_records(grids.nth(number))
            if records and "shared tasks" in records[0]:
                return records[0]
        return None

    pair = wait_until(paired, timeout, "the paired table")
    seconds = time.perf_counter() - started
    disagree = page.get_by_text(re.compile(r"^Tasks where they disagree")).first.inner_text()
    rows.append(
        (
            "4. Compare runs → paired table",
            seconds,
            f"against {pair.get('against')}: {pair.get('shared tasks')} shared tasks, "
            f"difference {pair.get('difference')}, McNemar p {pair.get('McNemar p')}; {disagree}",
        )
    )

    # 5. Branch trees: Home's Browse link, the task filter, and the sidebar's file choice.
    for file, line in BRANCHED:
        started = time.perf_counter()
        if line == 1:  # the first trace of the file: choose it in the sidebar
            files_box = page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']")
            files_box = files_box.filter(has_text="Trace file").first
            pick_option(page, files_box, file)
        else:  # Home's Browse link, then the sidebar's task filter (task = line - 1 here)
            page.get_by_role("link", name="Home").first.click()
            page.get_by_role("link", name=f"Browse {file}").click()
            page.get_by_role("tab", name="Segment 0").wait_for(timeout=ms)
            task = page.get_by_role("textbox", name="Task index")
            task.fill(str(line - 1))
            task.press("Enter")
        header = page.get_by_text(re.compile(rf" · line {line}$")).first
        header.wait_for(timeout=ms)
        settle(page, timeout)  # the tree of the trace shown before is gone
        tree = page.locator("[data-testid='stExpander']").filter(has_text="Branch tree").first
        tree.wait_for(timeout=ms)
        clicked = time.perf_counter()
        tree.locator("summary").first.click()
        links = tree.get_by_role("link", name=re.compile(r"line \d+: "))
        links.first.wait_for(timeout=ms)
        listed = settle(page, timeout)
        seconds = listed - started
        labels = [text for text in links.all_inner_texts() if text.strip()]
        kinds = sorted({label.split(": ", 1)[1].split(" at ")[0] for label in labels})
        title = tree.locator("summary").first.inner_text().strip().splitlines()[-1]
        rows.append(
            (
                f"5. Browse {file} → Branch tree listed",
                seconds,
                f"{header.inner_text()}; “{title}”: {len(labels)} listed "
                f"({', '.join(kinds)}; {listed - clicked:.1f} s after the click)",
            )
        )


def run(timeout: float, keep: bool) -> list[Row]:
    """Serve the app on a copy of the samples, walk through it, and stop it; the rows."""
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(ROOT))
    from tests.app.served_app import CHROMIUM_ARGS

    executable = shutil.which("chromium")
    if not executable:
        raise SystemExit("Debian chromium is missing: `apt-get install chromium`")
    work = Path(tempfile.mkdtemp(prefix="llenvs-walkthrough-"))
    folder = work / "traces"
    shutil.copytree(ROOT / "sample_traces", folder)
    rows: list[Row] = []
    try:
        started = time.perf_counter()
        with served(folder, timeout) as url:
            rows.append(("0. Server up (`streamlit run`)", time.perf_counter() - started, url))
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 2400, "height": 1400})
                try:
                    walk(page, url, timeout, rows)
                except Exception:
                    page.screenshot(path=str(work / "failure.png"), full_page=True)
                    (work / "failure.txt").write_text(page.inner_text("body"))
                    print(f"failed after {len(rows)} rows; page saved in {work}", file=sys.stderr)
                    print(format_table(rows), file=sys.stderr)
                    keep = True
                    raise
                finally:
                    browser.close()
    finally:
        if keep:
            print(f"the traces folder is kept: {folder}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return rows


def format_table(rows: list[Row]) -> str:
    """The rows as a markdown table, with the walk's total."""
    lines = ["| step | seconds | what was seen |", "|---|---:|---|"]
    lines += [f"| {step} | {seconds:.1f} | {seen} |" for step, seconds, seen in rows]
    counted = [seconds for step, seconds, _ in rows if "(within" not in step]
    lines.append(f"| total | {sum(counted):.1f} | the steps above, 2a counted once (in 2b) |")
    return "\n".join(lines)


def main() -> None:
    """Parse the arguments, walk through the app, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--timeout", type=float, default=600.0, help="seconds to wait for any one thing"
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the temporary traces folder (its path printed)"
    )
    args = parser.parse_args()
    started = time.perf_counter()
    rows = run(args.timeout, args.keep)
    print(f"## Walkthrough (`{COMMAND}`)\n")
    print(format_table(rows))
    print(f"\nWall time of the whole script: {time.perf_counter() - started:.1f} s.")


if __name__ == "__main__":
    main()
