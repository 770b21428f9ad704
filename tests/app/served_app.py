"""The workbench served by ``streamlit run`` on a free loopback port, for the browser tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""How the tests and ``bench/walkthrough.py`` start Debian's chromium (never a downloaded one)."""

IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
"""The app once its script has run to the end (no rerun under way)."""


SCREENSHOTS_ENV = "LLENVS_SCREENSHOTS"
"""Set to 1 to have the browser tests draw the documentation's screenshots again."""


def screenshot(target, name: str, **options) -> None:
    """Save ``target``'s screenshot (a page or a locator) as ``docs/screenshots/<name>`` when
    ``LLENVS_SCREENSHOTS=1``; a test run leaves the documentation as it is otherwise."""
    if os.environ.get(SCREENSHOTS_ENV) == "1":
        folder = REPO / "docs" / "screenshots"
        folder.mkdir(parents=True, exist_ok=True)
        getattr(target, "page", target).wait_for_timeout(1500)  # charts and fonts settle
        target.screenshot(path=str(folder / name), **options)


def keys_ready(page, queue: str) -> None:
    """Wait until the key queue ``queue`` listens on the page (``llenvs.ui.common._key_queue``: its
    script loads about a second after the page has drawn; a key pressed before it is lost)."""
    page.wait_for_function(
        f"() => !!(window.__llenvsKeyQueues && window.__llenvsKeyQueues[{queue!r}]?.send)",
        timeout=30_000,
    )


def choose(page, box, option, attempts: int = 3) -> None:
    """Open the select box ``box`` (a locator holding its combobox) and click ``option`` (a name
    or a pattern) in its list, once the app is idle.

    A rerun that lands while the list is open redraws it, and the option clicked is detached from
    the page; then the list is closed and opened again, up to ``attempts`` times, and the last
    failure is raised.
    """
    from playwright.sync_api import Error as PlaywrightError

    for attempt in range(attempts):
        page.wait_for_selector(IDLE, timeout=30_000)
        try:
            box.get_by_role("combobox").first.click(timeout=10_000)
            page.get_by_role("option", name=option).first.click(timeout=10_000)
            return
        except PlaywrightError:
            if attempt == attempts - 1:
                raise
            page.keyboard.press("Escape")


def grid_records(grid) -> list[dict[str, str]]:
    """A dataframe's rows by its header, from the copy its grid keeps for screen readers."""
    rows = grid.evaluate(
        """e => Array.from(e.querySelectorAll('table tr')).map(
               r => Array.from(r.querySelectorAll('th,td')).map(c => c.innerText.trim()))"""
    )
    rows = [row for row in rows if any(row)]
    if not rows:
        return []
    header, *body = rows
    return [dict(zip(header, row, strict=False)) for row in body]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def served_app(traces: Path, timeout: float = 60.0) -> Iterator[str]:
    """Start the app on 127.0.0.1 with ``traces`` as its folder; yield its URL; always stop it."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(REPO / "app.py"),
        "--server.address",
        "127.0.0.1",
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
    ]
    env = {**os.environ, "LLENVS_TRACES_DIR": str(traces)}
    log_path = Path(tempfile.mkdtemp(prefix="llenvs-app-log-")) / "streamlit.log"  # not in traces
    log = log_path.open("wb")
    process = subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the app did not start: {log_path.read_text()[-2000:]}")
            time.sleep(0.3)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
