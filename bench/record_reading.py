"""Reading records, before and after they were declared once (issue 54): must not get slower.

Run from the repository root::

    .venv/bin/python bench/record_reading.py                 # written to docs/benchmarks.md
    .venv/bin/python bench/record_reading.py --runs 2 --no-write

The traces' records went from hand-written readers to one declared converter (pydantic v2).
Three readings are timed in both trees, ``--before`` (default: the last commit whose traces were
read by hand) checked out into a temporary git worktree beside the working tree, each reading in
a fresh process, the trees interleaved run by run so the machine's load falls on both alike:

- *index*: the workbench's index of a file of ``TRACES`` traces (``TraceIndex.scan``: one JSON
  parse and a summary per line), then opening every 100th trace from it (``TraceIndex.load``);
- *read all*: every trace of the same file as a ``Trace`` (``read_traces``), the path the
  converter replaced;
- *inspect import*: ``llenvs import inspect``'s reader over a log of ``SAMPLES`` samples written
  by Inspect (as ``bench/inspect_import.py``, smaller), converted, segmented, written.

The peer of each row is the same reading in the ``before`` tree (after / before).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_common import ROOT, before_after_main, commit_tree, run_line

HEADING = "## Reading records, before and after they were declared once (`bench/record_reading.py`)"
BEFORE = "ef0c246"
"""The last commit whose traces were read by hand (``RecordReader``)."""
TRACES = 5000
SEGMENTS = 40
SAMPLES = 300

MEASURE = """
import json, sys, time
kind, path = sys.argv[1], sys.argv[2]
started = time.perf_counter()
if kind == "index":
    from llenvs.workbench.files import TraceIndex
    index = TraceIndex.scan(path)
    count = sum(1 for line in range(1, index.count + 1, 100) if index.load(line))
elif kind == "build":  # the converter's one-time cost, in the tree that has one
    import llenvs.traces
    started = time.perf_counter()
    from llenvs.core._records import _adapter
    _adapter(llenvs.traces.Trace)
    count = 1
elif kind == "read":
    from llenvs.traces import read_traces
    count = sum(1 for _ in read_traces(path))
else:
    from llenvs.traces import write_traces
    from llenvs.traces.importers import InspectImport
    count = write_traces(sys.argv[3], InspectImport(path))
print(json.dumps({"seconds": time.perf_counter() - started, "count": count}))
"""
CASES = {
    "index": f"index of {TRACES:,} traces, then every 100th opened",
    "read": f"every one of {TRACES:,} traces read as a `Trace`",
    "inspect": f"`llenvs import inspect` of {SAMPLES} samples",
}


def write_traces_file(path: Path) -> None:
    """``TRACES`` traces of ``SEGMENTS`` generated segments each (token ids, logprobs, scores)."""
    from llenvs.core import Message
    from llenvs.traces import SegmentRecord, TaskRecord, Trace, write_traces
    from llenvs.traces.records import SegmentFlag

    def trace(number: int) -> Trace:
        texts = [
            f"Step {k}: add {number + k} to the total, which is now {k * 7}. "
            for k in range(SEGMENTS)
        ]
        segments, start = [], 0
        for k, text in enumerate(texts):
            tokens = tuple(range(100 + k, 100 + k + 16))
            segments.append(
                SegmentRecord(
                    k,
                    start,
                    start + len(text),
                    text,
                    tokens,
                    tuple(-0.25 for _ in tokens),
                    rewards={"format": 1.0},
                    prm_scores={"arithmetic": 0.5 + k / 100},
                    flags=frozenset({SegmentFlag.GENERATED}),
                    terminal=k == SEGMENTS - 1,
                )
            )
            start += len(text)
        response = "".join(texts)
        task = TaskRecord("sums", "reasoning_gym", {"size": TRACES}, number, f"Add up {number}.")
        return Trace(
            task=task,
            response=response,
            segments=tuple(segments),
            messages=(Message("user", task.prompt), Message("assistant", response)),
            final_rewards={"correctness": float(number % 2)},
            success=number % 2 == 1,
        )

    write_traces(path, (trace(number) for number in range(TRACES)))


def write_log(path: Path) -> None:
    """The Inspect log of ``bench/inspect_import.py``, with ``SAMPLES`` samples."""
    sys.path.insert(0, str(ROOT / "bench"))
    import inspect_import

    inspect_import.SAMPLES = SAMPLES
    inspect_import._write_log(path)


def run_once(tree: Path, kind: str, source: Path, out: Path) -> float:
    """One reading in a fresh process importing llenvs from ``tree``; its seconds."""
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, kind, str(source), str(out)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(tree)},
        cwd=tree,
    )
    if done.returncode != 0:
        raise SystemExit(f"{kind} failed in {tree}:\n{done.stderr}")
    return float(json.loads(done.stdout.strip().splitlines()[-1])["seconds"])


def measure(before: str, runs: int) -> str:
    """Time every reading in both trees, interleaved; return the markdown section."""
    loads = os.getloadavg()
    started = time.time()
    with tempfile.TemporaryDirectory() as scratch, commit_tree(before) as old:
        folder = Path(scratch)
        traces, log, out = folder / "traces.jsonl", folder / "log.eval", folder / "out.jsonl"
        write_traces_file(traces)
        write_log(log)
        size_mb = traces.stat().st_size / 1e6
        sources = {"index": traces, "read": traces, "inspect": log}
        trees = {"before": old, "after": ROOT}
        for tree in trees.values():  # compiles each tree's bytecode once, not timed
            run_once(tree, "index", traces, out)
        times: dict[tuple[str, str], list[float]] = {}
        for _ in range(runs):
            for kind, source in sources.items():
                for name, tree in trees.items():
                    times.setdefault((kind, name), []).append(run_once(tree, kind, source, out))
        build = [run_once(ROOT, "build", traces, out) for _ in range(runs)]
    elapsed = time.time() - started

    def cell(values: list[float]) -> str:
        return f"{statistics.median(values):.2f} ({min(values):.2f})"

    rows = [
        "| reading | before (s), median (fastest) | after (s), median (fastest) | after / before |",
        "|---|---:|---:|---:|",
    ]
    for kind, label in CASES.items():
        old_times, new_times = times[(kind, "before")], times[(kind, "after")]
        ratio = statistics.median(new_times) / statistics.median(old_times)
        rows.append(f"| {label} | {cell(old_times)} | {cell(new_times)} | {ratio:.2f}x |")
    rows.append(
        f"| the converter of `Trace` built once (pydantic imported), in the index and read all "
        f"alike | — | {cell(build)} | |"
    )
    return (
        f"{HEADING}\n\n" + run_line(f"bench/record_reading.py --runs {runs}", loads, elapsed) + " "
        f"`{before}` (before: records read by hand) is checked out in a temporary git worktree; "
        "each reading runs in a fresh process, imports included, the two trees interleaved run "
        f"by run. The trace file: {TRACES:,} generated traces of {SEGMENTS} segments, each with "
        f"16 token ids, their logprobs, a reward and a PRM score ({size_mb:.0f} MB); the Inspect "
        f"log: {SAMPLES} samples of a 100-sentence reasoning block and an answer, written by "
        "Inspect.\n\n" + "\n".join(rows) + "\n"
    )


if __name__ == "__main__":
    before_after_main(__doc__, HEADING, measure, BEFORE, 5)
