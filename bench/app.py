"""Workbench benchmark: time to the first rendered trace, time to switch traces, peak memory.

Run from the repository root::

    .venv/bin/python bench/app.py                       # both parts below
    .venv/bin/python bench/app.py --part files --sizes 100 1000 --no-write
    .venv/bin/python bench/app.py --part traces         # big traces only

For each size a trace file is generated (12 segments per trace, about 0.6 KB of text, PRM scores
and rewards on every segment). Each measurement runs in a fresh Python process, on the Browse
page under Streamlit's ``AppTest``: the first run of the page on a new file (it builds the
file's index: one pass, one JSON parse per line, nothing else kept), the first run of a new
session once that index is cached, and the median of 5 switches to the next trace (the ``n``
button). Memory is the growth of the process's peak RSS over that run, beside the growth of a
process that parses the whole file into ``Trace`` objects (``list(read_traces(path))``).

The second part (``--part traces``) times Browse on one big trace against a 100-segment one:
10,000 segments, and a 1 MB response (100 segments of 10 KB; one segment of 1 MB). Each trace
file is measured in a fresh process: the median of 5 first renders (caches cleared before each:
the trace is read, parsed and tabled), of 5 renders in a new session with the caches warm, of 5
presses of next segment (``j``), and the size of the elements the page sends. The peer,
measured in the same run, is the page with every row and all the text drawn (the view before
it windowed big traces: the window and text limits patched away, the chart in SVG). Beside the
generated traces, the same is measured on a real one: the sample's 321-segment Thought Anchors
trace (R1-distill reasoning) with its published step values, tags and dependencies, given
against the 100-segment trace measured in the same run (goals: first render within
``TA_RENDER_SECONDS``, next segment within ``TA_MOVE_SECONDS``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_common import ROOT, write_section

HEADING = "## Workbench (`bench/app.py`)"
TRACES_HEADING = "## Workbench, big traces (`bench/app.py`)"
COMMAND = ".venv/bin/python bench/app.py"
SIZES = (100, 1_000, 10_000)
SWITCHES = 5
REPEATS = 5
GOAL_SECONDS = 2.0
"""The goal: a big trace opens within this many seconds of the 100-segment trace."""
BIG_TRACES = (
    ("100 segments", 100, 0),
    ("10,000 segments", 10_000, 0),
    ("1 MB: 100 segments of 10 KB", 100, 10_000),
    ("1 MB: one segment", 1, 1_000_000),
)
"""(name, segments, characters per segment: 0 for one step text, about 50)."""
SAMPLE = ROOT / "sample_traces" / "thought_anchors-r1-distill-llama-8b.jsonl"
SAMPLE_LINE = 3
"""The sample's longest Thought Anchors trace (321 segments) is on this line."""
SAMPLE_NAME = "Thought Anchors: 321 segments, published values"
TA_RENDER_SECONDS = 2.0
TA_MOVE_SECONDS = 0.3
"""Issue 26's goals for a 321-segment trace: it renders, and moves a segment, within these."""
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
    from llenvs.core.run_spec import RunSpec
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
            run=RunRecord.made_with(RunSpec(), model_name="generated", segmenter="steps"),
            response="".join(texts),
            segments=tuple(segments),
            final_rewards={"correctness": float(correct)},
            success=correct,
        )

    write_traces(path, (trace(number) for number in range(count)))
    return path.stat().st_size


def warm_up() -> None:
    """Pay imports and first-run costs that do not depend on the file: render a one-trace file.

    The file sits in a folder of its own, added to the folders the app may open.
    """
    import os

    from streamlit.testing.v1 import AppTest

    from llenvs.workbench.files import TRACE_ROOTS_ENV

    small = Path(tempfile.mkdtemp()) / "one.jsonl"
    make_file(small, 1)
    os.environ[TRACE_ROOTS_ENV] = str(small.parent)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.query_params["file"] = str(small)
    at.switch_page("pages/browse.py")
    at.run()
    assert not at.exception and at.subheader, "the warm-up trace did not render"


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

    warm_up()
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


def make_big_trace(path: Path, segments: int, characters: int) -> int:
    """Write one trace of ``segments`` step texts, each cut to ``characters`` when not 0.

    Returns the response's size in bytes.
    """
    from llenvs.core.run_spec import RunSpec
    from llenvs.traces import RunRecord, SegmentRecord, TaskRecord, Trace, write_traces

    records, offset = [], 0
    for index in range(segments):
        step = STEPS[index % len(STEPS)].format(a=3, b=4, c=12, d=8, e=20)
        text = (step * (characters // len(step) + 1))[:characters] if characters else step
        score = (index * 7 % 10) / 9
        records.append(
            SegmentRecord(
                index,
                offset,
                offset + len(text),
                text,
                rewards={"arithmetic_prm": score, "format": 0.0},
                prm_scores={"arithmetic_prm": score},
                terminal=index == segments - 1,
            )
        )
        offset += len(text)
    trace = Trace(
        task=TaskRecord("leg_counting", "reasoning_gym", {"size": 1}, 0, "Legs?"),
        run=RunRecord.made_with(RunSpec(), model_name="generated", segmenter="steps"),
        response="".join(r.text for r in records),
        segments=tuple(records),
        final_rewards={"correctness": 1.0},
        success=True,
    )
    write_traces(path, [trace])
    return len(trace.response.encode())


def copy_sample_trace(path: Path) -> int:
    """Write the sample's 321-segment trace to ``path``, its published values beside it.

    The trace's line is copied byte for byte (its id unchanged), so the sidecar's values are
    its own. Returns the response's size in bytes.
    """
    from llenvs.analysis import analysis_path
    from llenvs.traces import read_traces

    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    path.write_bytes(lines[SAMPLE_LINE - 1])
    shutil.copy(analysis_path(SAMPLE), analysis_path(path))
    [trace] = read_traces(path)
    return len(trace.response.encode())


def child_trace(path: str, everything: bool) -> dict[str, float | str]:
    """In a fresh process: Browse's first render, cached render and next segment on one trace.

    ``everything``: the peer, the page with all rows and all text drawn (no windows).
    """
    import os

    os.environ["LLENVS_TRACES_DIR"] = str(Path(path).parent)
    import streamlit as st
    from streamlit.testing.v1 import AppTest
    from streamlit.testing.v1.element_tree import Element

    if everything:
        from llenvs.ui.browse import _segment_detail as segment_detail_view
        from llenvs.ui.browse import _segment_rows as segment_rows_view
        from llenvs.workbench.charts import _segment_chart as segment_chart

        def all_rows(selected: int, total: int, size: int = 0, before: int = 0) -> range:
            return range(total)

        def all_text(length: int, start: int, limit: int = 0) -> range:
            return range(length)

        segment_rows_view.segment_window = all_rows  # type: ignore[attr-defined]
        segment_detail_view.text_window = all_text
        segment_chart.SVG_POINTS = 10**9

    def browse(file: str) -> AppTest:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
        at.query_params["file"] = file
        at.switch_page("pages/browse.py")
        return at

    def timed(at: AppTest) -> float:
        started = time.perf_counter()
        at.run()
        seconds = time.perf_counter() - started
        assert not at.exception and at.subheader, "the trace did not render"
        return seconds

    warm_up()
    first = []
    for _ in range(REPEATS):
        st.cache_data.clear()
        first.append(timed(browse(path)))
    cached = []
    for _ in range(REPEATS):
        session = browse(path)
        cached.append(timed(session))
    sizes = sorted(  # what a new session's first run sends, element by element
        (len(node.proto.SerializeToString()), str(node.type))
        for block in (session.main, session.sidebar)
        for node in block
        if isinstance(node, Element)
    )
    at = browse(path)
    timed(at)
    steps = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        at.button(key="nav-j").click().run()
        steps.append(time.perf_counter() - started)
        assert not at.exception
    return {
        "first": statistics.median(first),
        "cached": statistics.median(cached),
        "step": statistics.median(steps),
        "rows": float(len(at.dataframe[1].value)),
        "sent_kb": sum(size for size, _ in sizes) / 1e3,
        "largest_kb": sizes[-1][0] / 1e3,
        "largest": sizes[-1][1],
    }


def child_parse(path: str) -> dict[str, float]:
    """In a fresh process: peak RSS growth of parsing the whole file into traces."""
    from llenvs.traces import read_traces

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    traces = list(read_traces(path))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"count": len(traces), "rss_mb": (peak - before) / 1024}


def measure(kind: str, path: Path) -> dict[str, Any]:
    """Run one child measurement and return its JSON result."""
    out = subprocess.run(
        [sys.executable, __file__, "--child", kind, str(path)],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def run_traces() -> str:
    """Measure Browse on each big trace, windowed and drawn whole; the markdown section."""
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for number, (name, segments, characters) in enumerate(BIG_TRACES):
            path = Path(folder) / str(number) / "trace.jsonl"
            path.parent.mkdir()
            size = make_big_trace(path, segments, characters)
            windowed = measure("trace", path)
            whole = measure("trace-whole", path)
            print(f"{name}: {windowed} whole {whole}", file=sys.stderr)
            rows.append((name, segments, size, windowed, whole))
        path = Path(folder) / "sample" / "thought_anchors.jsonl"
        path.parent.mkdir()
        size = copy_sample_trace(path)
        sample = (SAMPLE_NAME, 321, size, measure("trace", path), measure("trace-whole", path))
        print(f"{SAMPLE_NAME}: {sample[3]} whole {sample[4]}", file=sys.stderr)
    generated = rows
    rows = [*rows, sample]
    base, base_whole = rows[0][3], rows[0][4]

    def against(value: dict[str, float], reference: dict[str, float], key: str) -> str:
        if value is reference:
            return "—"
        difference, ratio = value[key] - reference[key], value[key] / reference[key]
        return f"{difference:+.2f} s, ×{ratio:.1f}"

    lines = [
        TRACES_HEADING,
        "",
        f"Command: `{COMMAND} --part traces` — run "
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC on {platform.machine()}, "
        f"Python {platform.python_version()}, 2 CPU cores shared with other work.",
        "One generated trace per file (the step texts above, PRM scores and rewards on every "
        "segment); the Browse page under `AppTest`, each file in a fresh process. *First "
        f"render*: median of {REPEATS} runs with the caches cleared before each (the trace is "
        f"read, parsed and tabled). *Cached*: median of {REPEATS} new sessions. *Next segment*: "
        f"median of {REPEATS} presses of `j`. Each is given against the 100-segment trace "
        "(difference, ratio). *Sent*: the size of the elements a new session's first run "
        "sends to the browser (`AppTest` times the server only, not the browser drawing "
        "them). *All drawn* "
        "is the peer, measured in the same run: every row in the styled table, the whole text "
        "in the segment and raw tabs, the chart in SVG (the page before big traces were "
        "windowed). The last row is a real trace, not generated: the sample's 321-segment "
        "Thought Anchors trace, with its published step values (the step values panel draws "
        "them), function tags and dependencies.",
        "",
        "| trace | response KB | rows shown | first render (s) | vs 100 segments | cached (s) "
        "| vs 100 segments | next segment (s) | vs 100 segments | sent KB (largest element) "
        "| all drawn: first render (s) | vs 100 segments | all drawn: next segment (s) "
        "| all drawn: sent KB |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, _, size, windowed, whole in rows:
        lines.append(
            f"| {name} | {size / 1e3:,.0f} | {windowed['rows']:,.0f} | {windowed['first']:.2f} | "
            f"{against(windowed, base, 'first')} | {windowed['cached']:.2f} | "
            f"{against(windowed, base, 'cached')} | {windowed['step']:.2f} | "
            f"{against(windowed, base, 'step')} | {windowed['sent_kb']:,.0f} "
            f"({windowed['largest']} {windowed['largest_kb']:,.0f}) | "
            f"{whole['first']:.2f} | {against(whole, base_whole, 'first')} | "
            f"{whole['step']:.2f} | {whole['sent_kb']:,.0f} |"
        )
    worst = max(generated[1:], key=lambda row: row[3]["first"] - base["first"])
    gap = worst[3]["first"] - base["first"]
    lines += [
        "",
        f"Goal: every big trace's first render within {GOAL_SECONDS:g} s of the 100-segment "
        f"trace's. Slowest here: {worst[0]}, {gap:+.2f} s "
        f"({'met' if gap <= GOAL_SECONDS else 'not met'}); drawn whole, the same trace took "
        f"{worst[4]['first'] - base_whole['first']:+.2f} s.",
        "",
        f"Goal (issue 26): the 321-segment Thought Anchors trace renders within "
        f"{TA_RENDER_SECONDS:g} s and moves to the next segment within {TA_MOVE_SECONDS:g} s. "
        f"Here: first render {sample[3]['first']:.2f} s (×{sample[3]['first'] / base['first']:.1f} "
        f"the 100-segment trace's), {sample[3]['cached']:.2f} s in a new session "
        f"(×{sample[3]['cached'] / base['cached']:.1f}), "
        f"{'met' if sample[3]['first'] <= TA_RENDER_SECONDS else 'not met'}; next segment "
        f"{sample[3]['step']:.2f} s (×{sample[3]['step'] / base['step']:.1f}), "
        f"{'met' if sample[3]['step'] <= TA_MOVE_SECONDS else 'not met'}.",
    ]
    return "\n".join(lines) + "\n"


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
    parser.add_argument(
        "--part",
        choices=["files", "traces", "all"],
        default="all",
        help="files: 100 to 10,000 traces per file; traces: one big trace; all: both",
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--child", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, path = args.child
        children: dict[str, Callable[[], object]] = {
            "app": lambda: child_app(path),
            "parse": lambda: child_parse(path),
            "trace": lambda: child_trace(path, everything=False),
            "trace-whole": lambda: child_trace(path, everything=True),
        }
        print(json.dumps(children[kind]()))
        return
    sections = []
    if args.part in ("files", "all"):
        sections.append((HEADING, run(tuple(args.sizes))))
    if args.part in ("traces", "all"):
        sections.append((TRACES_HEADING, run_traces()))
    for heading, section in sections:
        print(section)
        if not args.no_write:
            write_section(heading, section)
            print(f"{heading} written to docs/benchmarks.md", file=sys.stderr)


if __name__ == "__main__":
    main()
