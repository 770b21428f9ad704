"""Intervening from the workbench against ``llenvs intervene``, on the embedded model.

One sample trace (leg_counting, line 3 of ``sample_traces/leg_counting-smollm2.jsonl``, the
longest sample), segment 1 forced. Three ways, in one run, each repeated:

- the CLI, ``llenvs intervene`` in a subprocess (its wall time, the model load included), and
  the library call the CLI makes once the model is loaded (``intervene``), timed in-process (on
  the app's worker thread, as a CLI process runs torch on one thread) to the first new segment
  and to the finished branch;
- the workbench: an AppTest click on Generate, the model already loaded (from the shared model
  pool), timed to the first new segment and to the finished branch (the background job's own
  marks), and to the page drawn again;
- a second intervention on the same trace right after the first, in the same process: its
  first segment arrives sooner because the kept prefix's KV cache is reused.

Goals (issues 11 and 25): the workbench's finished branch (the job's own mark: the branch is
in the sidecar) takes at most 10% longer than the library ``intervene`` call on the same loaded
model; the page drawn again around it is reported beside; the second intervention's first
segment arrives at least 2x sooner than the first's.
"""

from __future__ import annotations

import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_common import ROOT, main

from llenvs.core import Force, RunControl, RunEvent
from llenvs.evaluation import BranchRequest, StepTaken, intervene
from llenvs.inference._backends.kv_sessions import KVSessionStore
from llenvs.traces import SegmentFlag, find_trace
from llenvs.ui.browse import POLL_SECONDS
from llenvs.workbench.jobs import BackgroundJob

HEADING = "## Intervening: the workbench against `llenvs intervene`"
SAMPLE = ROOT / "sample_traces" / "leg_counting-smollm2.jsonl"
LINE = "3"
AT = 1
FORCED = "Deer have 4 legs, so 12 deer have 48 legs. "
REPEAT = 3
PRM = "arithmetic"
"""The sample trace has ArithmeticPRM scores, so the workbench scores the branch with it too."""


def _copy(folder: Path) -> Path:
    target = folder / "lc.jsonl"
    shutil.copy(SAMPLE, target)
    return target


def _library(backend: Any, path: Path) -> tuple[float, float]:
    """``_library_call`` on the app's worker thread, where the workbench's jobs run too.

    torch runs on an OpenMP team per calling thread; a second team (this process's main
    thread's) would slow both on 2 cores, which a CLI process, with one thread, never meets.
    """

    class Call(BackgroundJob):
        def work(self) -> None:
            self.times = _library_call(backend, path)

    call = Call(name="bench-library")
    call.wait()
    if call.error is not None:
        raise call.error
    times: tuple[float, float] = call.times
    return times


def _library_call(backend: Any, path: Path) -> tuple[float, float]:
    """Seconds to the first new segment and to the finished branch (``intervene``)."""
    parent = find_trace(path, LINE)
    start = time.perf_counter()
    first: list[float] = []

    def seen(event: RunEvent) -> None:
        if not first and isinstance(event, StepTaken) and SegmentFlag.GENERATED in event.flags:
            first.append(time.perf_counter() - start)

    request = BranchRequest(parent, AT, Force(FORCED))
    intervene(path, request, backend, prm=PRM, control=RunControl(seen))
    return first[0], time.perf_counter() - start


def _cli(path: Path) -> float:
    """Wall seconds of the CLI doing the same, model load included."""
    command = [
        str(Path(sys.executable).with_name("llenvs")),
        "intervene",
        str(path),
        "--trace",
        LINE,
        "--at",
        str(AT),
        "--force",
        FORCED,
        "--prm",
        PRM,
        "--no-progress",
    ]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def _app(path: Path) -> tuple[float, float, float]:
    """Seconds from the click to the first new segment, the branch written, the page drawn.

    The click starts the intervention in the background (``InterventionJob``); the first
    segment's and the written branch's times are the job's own marks (the branch is in the
    sidecar when the job ends); the page time is when the page has been drawn again with the
    branch beside its parent (the AppTest run after the job ended). A browser sees each new
    segment up to ``POLL_SECONDS`` later, when the live view next redraws.
    """
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at.run()
    at.switch_page("pages/browse.py")
    at.query_params.update({"file": str(path), "trace": LINE, "segment": str(AT)})
    at.run()
    at.text_area(key="iv-force-text").input(FORCED).run()
    start = time.perf_counter()
    at.button(key="iv-run").click().run()
    job = at.session_state["iv-job"]
    assert job.wait(900), "the intervention did not finish"
    at.run()
    done = time.perf_counter()
    assert not at.exception, at.exception
    assert "iv-job" not in at.session_state and job.error is None, job.error
    return job.first_segment - start, job.finished - start, done - start


def run() -> str:
    """Time the three ways (see the module docstring); the section for docs/benchmarks.md."""
    import os

    from llenvs.ui.common import load_backend
    from llenvs.workbench.models import ModelChoice, ModelKind

    folder = Path(tempfile.mkdtemp(prefix="bench-intervene-"))
    os.environ["LLENVS_TRACES_DIR"] = str(folder)
    path = _copy(folder)
    backend: Any = load_backend(ModelChoice(ModelKind.EMBEDDED))  # the app's shared model
    cli = [_cli(path) for _ in range(REPEAT)]
    library, app, second = [], [], []
    _library(backend, path)  # warm-up: the first call decodes the vocabulary for healing
    for number in range(REPEAT):
        for which in ("app", "library") if number % 2 else ("library", "app"):
            backend.sessions = KVSessionStore(backend.max_sessions)  # a cold intervention
            if which == "app":
                app.append(_app(path))
            else:
                library.append(_library(backend, path))
                second.append(_library(backend, path))  # the same again: the cache is kept
    median = statistics.median
    lib_first, lib_done = median(t[0] for t in library), median(t[1] for t in library)
    app_first, app_done = median(t[0] for t in app), median(t[1] for t in app)
    app_drawn = median(t[2] for t in app)
    again_first = median(t[0] for t in second)
    rows = [
        ("`llenvs intervene` (subprocess, model load included)", "—", median(cli)),
        ("library `intervene` (what the CLI runs once loaded)", lib_first, lib_done),
        ("workbench: click on Generate (model already loaded)", app_first, app_done),
        ("workbench: the page drawn again with the branch", "—", app_drawn),
        (
            "second intervention on the same trace (library)",
            again_first,
            median(t[1] for t in second),
        ),
    ]
    lines = [
        HEADING,
        "",
        "Command: `.venv/bin/python bench/intervene.py` — run "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {platform.machine()}, "
        f"Python {platform.python_version()}.",
        "",
        "`bench/intervene.py`, embedded SmolLM2-135M-Instruct, float32, on this machine (2 CPU "
        "cores, shared). The trace: line 3 of `sample_traces/leg_counting-smollm2.jsonl` "
        f"({len(find_trace(SAMPLE, LINE).segments)} segments, the longest sample), segment {AT} "
        "forced, every step scored by the "
        f"{PRM} PRM in all three; medians of {REPEAT} runs. The workbench's click starts the "
        "intervention in the background and the page is drawn again once it ends (AppTest); in "
        f"a browser each new segment shows up to {POLL_SECONDS} s later (the live view's "
        "redraw interval).",
        "",
        "| how | first new segment (s) | finished branch (s) |",
        "|---|---|---|",
    ]
    for name, first, done in rows:
        shown = first if isinstance(first, str) else f"{first:.2f}"
        lines.append(f"| {name} | {shown} | {done:.2f} |")
    overhead = app_done / lib_done - 1
    drawn = app_drawn / lib_done - 1
    against_cli = app_done / median(cli) - 1
    speedup = lib_first / again_first
    lines += [
        "",
        f"- Against `llenvs intervene` (issue 11's peer) the workbench's finished branch takes "
        f"{against_cli:+.0%}: the app keeps the model loaded (goal: at most +10%).",
        f"- Against the library `intervene` on the same loaded model (the peer issue 25 "
        f"names), the workbench's finished branch (written to the sidecar) takes {overhead:+.0%} "
        f"(goal: at most +10%); with the page drawn again around it, {drawn:+.0%}.",
        f"- The second intervention's first segment arrives {speedup:.1f}x sooner than the "
        "first's (goal: at least 2x): the kept prefix is already encoded.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main(run, HEADING, __doc__)
