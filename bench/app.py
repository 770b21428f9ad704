"""Workbench benchmark: time to the first rendered trace, time to switch traces, peak memory.

Run from the repository root::

    .venv/bin/python bench/app.py                       # 100, 1,000, 10,000 traces
    .venv/bin/python bench/app.py --sizes 100 1000 --no-write

For each size a trace file is generated (12 segments per trace, about 0.6 KB of text, PRM scores
and rewards on every segment). Each measurement runs in a fresh Python process, on the Browse
page under Streamlit's ``AppTest``: the first run of the page on a new file (it builds the
file's index: one pass, one JSON parse per line, nothing else kept), the first run of a new
session once that index is cached, and the median of 5 switches to the next trace (the ``n``
button). Memory is the growth of the process's peak RSS over that run, beside the growth of a
process that parses the whole file into ``Trace`` objects (``list(read_traces(path))``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_common import ROOT, write_section

HEADING = "## Workbench (`bench/app.py`)"
COMMAND = ".venv/bin/python bench/app.py"
SIZES = (100, 1_000, 10_000)
SWITCHES = 5
STEPS = (
    "There are {a} dogs and {b} birds in the yard. ",
    "Dogs have 4 legs, so the dogs have {a} × 4 = {c} legs. ",
    "Birds have 2 legs, so the birds have {b} × 2 = {d} legs. ",
    "Adding them up gives {c} + {d} = {e} legs.\n\n",
    "Let me check this again to be sure nothing was missed in the count of the animals. ",
    "The dogs: {a} of them, four legs each, which is {c}. ",
    "The birds: {b} of them, two legs each, which is {d}. ",
    "So the total stays {c} + {d} = {e}.\n\n",
    "Some people count the tail as a leg, but the question asks about legs only. ",
    "Therefore no other animal parts are included. ",
    "The final answer is {e}. ",
    "<answer>{e}</answer>",
)


def make_file(path: Path, count: int) -> int:
    """Write ``count`` generated traces to ``path``; its size in bytes."""
    from llenvs.traces import RunRecord, SegmentRecord, TaskRecord, Trace, write_traces

    def trace(number: int) -> Trace:
        a, b = 2 + number % 17, 3 + number % 11
        values = {"a": a, "b": b, "c": 4 * a, "d": 2 * b, "e": 4 * a + 2 * b + number % 3}
        texts = [step.format(**values) for step in STEPS]
        segments, offset = [], 0
        for index, text in enumerate(texts):
            score = 0.0 if index == 3 and number % 3 else 1.0 if "=" in text else 0.5
            segments.append(
                SegmentRecord(
                    index,
                    offset,
                    offset + len(text),
                    text,
                    rewards={"arithmetic_prm": score, "format": 0.0},
                    prm_scores={"arithmetic_prm": score},
                    terminal=index == len(texts) - 1,
                )
            )
            offset += len(text)
        correct = number % 3 == 0
        return Trace(
            task=TaskRecord("leg_counting", "reasoning_gym", {"size": count}, number, "Legs?"),
            run=RunRecord(model="generated", segmenter="steps"),
            response="".join(texts),
            segments=tuple(segments),
            final_rewards={"correctness": float(correct)},
            success=correct,
        )

    write_traces(path, (trace(number) for number in range(count)))
    return path.stat().st_size


def child_app(path: str) -> dict[str, float]:
    """In a fresh process: first render (cold, then warm), switch time, peak RSS growth."""
    import os

    os.environ["LLENVS_TRACES_DIR"] = str(Path(path).parent)
    from streamlit.testing.v1 import AppTest

    def browse() -> AppTest:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
        at.query_params["file"] = path
        at.switch_page("pages/browse.py")
        return at

    # Imports and first-run costs that do not depend on the file: a one-trace file, rendered.
    small = Path(tempfile.mkdtemp()) / "one.jsonl"
    make_file(small, 1)
    warm_up = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    warm_up.query_params["file"] = str(small)
    warm_up.switch_page("pages/browse.py")
    warm_up.run()
    assert warm_up.subheader, "the warm-up trace did not render"
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    at = browse()
    started = time.perf_counter()
    at.run()
    cold = time.perf_counter() - started
    assert not at.exception and at.subheader, "the trace did not render"
    second = browse()
    started = time.perf_counter()
    second.run()
    warm = time.perf_counter() - started
    switches = []
    for _ in range(SWITCHES):
        started = time.perf_counter()
        second.button(key="nav-n").click().run()
        switches.append(time.perf_counter() - started)
        assert not second.exception
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "cold": cold,
        "warm": warm,
        "switch": statistics.median(switches),
        "rss_mb": (peak - before) / 1024,
    }


def child_parse(path: str) -> dict[str, float]:
    """In a fresh process: peak RSS growth of parsing the whole file into traces."""
    from llenvs.traces import read_traces

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    traces = list(read_traces(path))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"count": len(traces), "rss_mb": (peak - before) / 1024}


def measure(kind: str, path: Path) -> dict[str, float]:
    """Run one child measurement and return its JSON result."""
    out = subprocess.run(
        [sys.executable, __file__, "--child", kind, str(path)],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def run(sizes: tuple[int, ...]) -> str:
    """Measure every size and return the markdown section."""
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            path = Path(folder) / str(size) / "traces.jsonl"
            path.parent.mkdir()
            megabytes = make_file(path, size) / 1e6
            app = measure("app", path)
            parsed = measure("parse", path)
            print(f"{size}: {app} parsed {parsed}", file=sys.stderr)
            rows.append((size, megabytes, app, parsed))
    lines = [
        HEADING,
        "",
        f"Command: `{COMMAND}` — run {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC "
        f"on {platform.machine()}, Python {platform.python_version()}, 2 CPU cores.",
        "Generated trace files (12 segments, about 0.6 KB of text, 4.4 KB of JSON per trace); "
        "the Browse page under `AppTest`, each size in a fresh process. *First render, new "
        "file*: the first run on the file, which builds its index (one JSON parse per line, "
        "only a summary row and the line's byte offset kept). *First render, cached*: a new "
        "session once the index is cached. *Switch*: median of 5 presses of next trace. "
        "*Memory*: growth of peak RSS over the app's run, against a process that parses the "
        "whole file into `Trace` objects.",
        "",
        "| traces | file MB | first render, new file (s) | first render, cached (s) | "
        "switch trace (s) | app memory (MB) | parsed file (MB) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for size, megabytes, app, parsed in rows:
        lines.append(
            f"| {size:,} | {megabytes:.1f} | {app['cold']:.2f} | {app['warm']:.2f} | "
            f"{app['switch']:.3f} | {app['rss_mb']:.0f} | {parsed['rss_mb']:.0f} |"
        )
    if len(rows) > 1:
        (small, _, first, _), (large, _, last, parsed_last) = rows[0], rows[-1]
        lines += [
            "",
            f"Growth from {small:,} to {large:,} traces ({large // small}× the traces): "
            f"first render on a new file ×{last['cold'] / first['cold']:.1f}, first render "
            f"cached ×{last['warm'] / first['warm']:.1f}, switch "
            f"×{last['switch'] / first['switch']:.1f}; the app's memory at {large:,} traces is "
            f"{last['rss_mb']:.0f} MB against {parsed_last['rss_mb']:.0f} MB for the parsed "
            "file.",
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    """Parse the arguments; run a child measurement or the whole benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--child", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, path = args.child
        print(json.dumps(child_app(path) if kind == "app" else child_parse(path)))
        return
    section = run(tuple(args.sizes))
    print(section)
    if not args.no_write:
        write_section(HEADING, section)
        print("written to docs/benchmarks.md", file=sys.stderr)


if __name__ == "__main__":
    main()
