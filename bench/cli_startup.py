"""CLI start-up benchmark: ``llenvs --help`` and ``import llenvs.core``, before and after the faces.

Run from the repository root::

    .venv/bin/python bench/cli_startup.py                 # written to docs/benchmarks.md
    .venv/bin/python bench/cli_startup.py --runs 5 --no-write

Issue 54 put every package behind a face (an ``__init__`` that imports its private modules), so
importing a package now imports more of it at once; the faces must not make the command line
slower to start or pull a model library in. ``--before`` (default: the last commit before the
faces) is checked out into a temporary git worktree and timed beside the working tree, each
command in a fresh process, the two trees and the peer interleaved run by run so the machine's
load falls on all alike. The peer is a bare ``python -c pass``: the interpreter's own start, which
no change of ours can beat. Each process also reports how many modules it imported and whether
torch, transformers or streamlit were among them.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_common import ROOT, before_after_main, commit_tree, run_line

HEADING = "## Command-line start-up, before and after the faces (`bench/cli_startup.py`)"
BEFORE = "4aa1ea2"
"""The last commit before issue 54 gave the packages their faces."""
HEAVY = ("torch", "transformers", "streamlit")
PROBE = (
    "import sys, json, io, contextlib\n"
    "before = set(sys.modules)\n"
    "{body}\n"
    "mods = set(sys.modules) - before\n"
    "heavy = sorted(h for h in {heavy!r} if h in mods)\n"
    "print(json.dumps({{'modules': len(mods), 'heavy': heavy}}), file=sys.stderr)\n"
)
HELP = (
    "from llenvs.cli.main import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    try:\n"
    "        main(['--help'])\n"
    "    except SystemExit:\n"
    "        pass"
)
CASES = {
    "help": ("`llenvs --help`", HELP),
    "core": ("`import llenvs.core`", "import llenvs.core"),
}


def run_once(tree: Path | None, body: str) -> tuple[float, dict[str, object]]:
    """One fresh process importing llenvs from ``tree`` (None: the bare interpreter's start)."""
    environment = dict(os.environ)
    if tree is None:
        command = [sys.executable, "-c", "pass"]
    else:
        environment["PYTHONPATH"] = str(tree)
        command = [sys.executable, "-c", PROBE.format(body=body, heavy=HEAVY)]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=environment, cwd=tree)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{command[-1][:60]!r} failed in {tree}:\n{done.stderr}")
    report = json.loads(done.stderr.strip().splitlines()[-1]) if tree is not None else {}
    return seconds, report


def check_tree(tree: Path) -> None:
    """Refuse to time a tree whose llenvs is not the one imported (an installed copy winning)."""
    code = "import llenvs, sys; print(llenvs.__file__)"
    found = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(tree)},
        cwd=tree,
        check=True,
    ).stdout.strip()
    if not Path(found).resolve().is_relative_to(tree.resolve()):
        raise SystemExit(f"llenvs came from {found}, not from {tree}")


def measure(before: str, runs: int) -> str:
    """Time every case in both trees and the peer, interleaved; return the markdown section."""
    loads = os.getloadavg()
    started = time.time()
    with commit_tree(before) as old:
        trees = {"before": old, "after": ROOT}
        for tree in trees.values():
            check_tree(tree)
            for _, body in CASES.values():
                run_once(tree, body)  # compiles the tree's bytecode once, not timed
        times: dict[tuple[str, str], list[float]] = {}
        reports: dict[tuple[str, str], dict[str, object]] = {}
        peer: list[float] = []
        for _ in range(runs):
            peer.append(run_once(None, "")[0])
            for case, (_, body) in CASES.items():
                for name, tree in trees.items():
                    seconds, report = run_once(tree, body)
                    times.setdefault((case, name), []).append(seconds)
                    reports[(case, name)] = report
    elapsed = time.time() - started
    bare = statistics.median(peer)

    def cell(values: list[float]) -> str:
        return f"{statistics.median(values) * 1000:.0f} ({min(values) * 1000:.0f})"

    rows = [
        "| command | tree | runs | ms, median (fastest) | modules imported | model libraries "
        "imported | / bare interpreter | after / before |",
        "|---|---|---:|---:|---:|---|---:|---:|",
    ]
    for case, (label, _) in CASES.items():
        first = statistics.median(times[(case, "before")])
        for name in ("before", "after"):
            values = times[(case, name)]
            report = reports[(case, name)]
            heavy = ", ".join(report["heavy"]) or "none"  # type: ignore[arg-type]
            ratio = statistics.median(values) / first
            tree = f"`{before}` (before)" if name == "before" else "this tree (after)"
            rows.append(
                f"| {label} | {tree} | {len(values)} | {cell(values)} | {report['modules']} | "
                f"{heavy} | {statistics.median(values) / bare:.1f}x | "
                f"{'' if name == 'before' else f'{ratio:.2f}x'} |"
            )
    rows.append(f"| `python -c pass` (the peer) | | {len(peer)} | {cell(peer)} | | | 1.0x | |")
    return (
        f"{HEADING}\n\n" + run_line(f"bench/cli_startup.py --runs {runs}", loads, elapsed) + " "
        f"`{before}` is the last commit before issue 54's faces, checked out in a temporary git "
        "worktree; each command runs in a fresh process (both trees' bytecode compiled by an "
        "untimed first run), the trees and the bare interpreter interleaved run by run. *Modules "
        "imported*: new entries of `sys.modules` in the process (Python's own start-up modules "
        "left out).\n\n" + "\n".join(rows) + "\n"
    )


if __name__ == "__main__":
    before_after_main(__doc__, HEADING, measure, BEFORE, 15)
