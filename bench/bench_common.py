"""What every benchmark script shares: the external data, timing, and its docs section.

Each script under ``bench/`` prints one markdown section and, unless ``--no-write``, replaces
only that section of ``docs/benchmarks.md`` (written atomically), so scripts can run in any order.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.vllm_server import VLLMServer

ROOT = Path(__file__).resolve().parents[1]
EXTERNAL = ROOT / ".." / "shared" / "external"
DOC = ROOT / "docs" / "benchmarks.md"
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
"""The app in a browser once its script has run to the end (as ``tests/app/served_app.py``)."""


def read_jsonl(name: str) -> list[dict[str, Any]]:
    """The rows of one external JSONL file."""
    with (EXTERNAL / name).open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def best_seconds(call: Callable[[], object], repeat: int = 5) -> float:
    """The fastest of ``repeat`` timed calls."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - started)
    return best


def write_section(heading: str, section: str) -> None:
    """Replace (or add) the section under ``heading`` of ``docs/benchmarks.md``, nothing else."""
    current = DOC.read_text(encoding="utf-8") if DOC.exists() else "# Benchmarks\n"
    start = current.find(heading)
    if start == -1:
        updated = current.rstrip("\n") + "\n\n" + section
    else:
        following = current.find("\n## ", start + len(heading))
        rest = "" if following == -1 else current[following + 1 :]
        updated = current[:start] + section + ("\n" + rest if rest else "")
    DOC.parent.mkdir(parents=True, exist_ok=True)
    temporary = DOC.with_suffix(".md.tmp")
    temporary.write_text(updated, encoding="utf-8")
    temporary.replace(DOC)


def publish(heading: str, section: str, *, write: bool) -> None:
    """Print a benchmark's section and, when ``write``, replace it in ``docs/benchmarks.md``."""
    print(section)
    if write:
        write_section(heading, section)
        print(f"written to {DOC.relative_to(ROOT)}", file=sys.stderr)


def main(run: Callable[[], str], heading: str, description: str | None) -> None:
    """Run a benchmark, print its section, and write it unless ``--no-write``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    publish(heading, run(), write=not args.no_write)


def started_vllm_server() -> VLLMServer | None:
    """The embedded model on a vLLM server started now; None when its environment is missing.

    Prints the time to ready, or why it skipped (``make vllm-server`` builds the environment).
    """
    from llenvs.inference._backends.embedded_model import embedded_model_path
    from tests.vllm_server import VLLM_PYTHON, VLLMServer

    if not VLLM_PYTHON.exists():
        print(
            f"skipped: the vLLM server's environment is missing ({VLLM_PYTHON}); "
            "build it with `make vllm-server`",
            file=sys.stderr,
        )
        return None
    started = time.perf_counter()
    server = VLLMServer(embedded_model_path(progress=False))
    server.start()
    print(f"server ready ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    return server


@contextmanager
def browser_page(traces: Path, size: tuple[int, int] = (1500, 1200)) -> Iterator[tuple[Any, str]]:
    """A chromium page and the URL of the app serving ``traces``; both stopped at the end.

    The app is served as the browser tests serve it (``tests/app/served_app.py``), driven with
    playwright and Debian's chromium (``executable_path=shutil.which("chromium")``).
    """
    sys.path.insert(0, str(ROOT))
    from playwright.sync_api import sync_playwright

    from tests.app.served_app import CHROMIUM_ARGS, served_app

    executable = shutil.which("chromium")
    if not executable:
        raise SystemExit("Debian chromium is missing: `apt-get install chromium`")
    with served_app(traces) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            width, height = size
            yield browser.new_page(viewport={"width": width, "height": height}), url
        finally:
            browser.close()


@contextmanager
def commit_tree(commit: str) -> Iterator[Path]:
    """``commit`` checked out in a temporary git worktree, removed after.

    The "before" of a before-and-after table, timed beside this tree.
    """
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / "before"
        subprocess.run(
            ["git", "worktree", "add", "--detach", "--quiet", str(tree), commit],
            cwd=ROOT,
            check=True,
        )
        try:
            yield tree
        finally:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False
            )


def before_after_main(
    doc: str, heading: str, measure: Callable[[str, int], str], before: str, runs: int
) -> None:
    """A before-and-after script's command line; measures, prints the section, writes it.

    ``--before`` (the commit), ``--runs`` (fresh processes per case) and ``--no-write``.
    """
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--before", default=before, help="the commit to compare with")
    parser.add_argument("--runs", type=int, default=runs, help="fresh processes per case")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    publish(heading, measure(args.before, args.runs), write=not args.no_write)


def run_line(command: str, loads: tuple[float, float, float], elapsed: float) -> str:
    """The line a section opens with: the command, when and where it ran, the load before it.

    ``command`` is the script and its options (``bench/x.py --runs 5``); ``loads`` the load
    averages taken before the run (``os.getloadavg()``); ``elapsed`` its seconds.
    """
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"Command: `.venv/bin/python {command}` — run {when} on {platform.machine()}, Python "
        f"{platform.python_version()}, {os.cpu_count()} cores, load average {loads[0]:.1f}, "
        f"{loads[1]:.1f}, {loads[2]:.1f} before, {elapsed:.0f} s in all."
    )
