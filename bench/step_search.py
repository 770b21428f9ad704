"""Step search over 5,000 R1-length traces: index build, first results against ``grep -c``, meaning.

Run from the repository root::

    .venv/bin/python bench/step_search.py                 # written to docs/benchmarks.md
    .venv/bin/python bench/step_search.py --traces 200 --no-write   # a quick look

The folder is built in a temporary directory from the Thought Anchors sample
(``sample_traces/thought_anchors-r1-distill-llama-8b.jsonl``: three DeepSeek-R1-Distill-Llama-8B
responses, 549 steps): trace i is a window of 250–350 consecutive steps of the sample's steps
(taken in a ring, from a start that moves with i), its numbers changed per trace (so no two
traces say the same), written 100 traces a file. Timed in one run:

- **the step index**: ``StepStore.refresh`` of every file (read, rows, FTS5 trigram index), then
  again with nothing changed (what every search pays first);
- **text search**: the first 20 hits of ``search_steps`` (the freshness check included) and all
  hits, for a common word, a rarer phrase and a regex, against ``grep -c -i -F`` (``-E`` for the
  regex) over the same files: the peer, which counts lines (traces), not steps;
- **meaning**: all-MiniLM-L6-v2 embedding into the usearch index on a subset (``--embed``
  steps; 1.5 M steps on two cores would take hours, so the rate is measured and the full build
  extrapolated), then a query against an index of one vector per step of the whole folder (the
  subset's real vectors repeated with a little noise, so the graph has the full size), and the
  memory: the index's bytes on disk and the process's resident memory with it loaded, per
  million steps.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_common import ROOT, publish, run_line

from llenvs.traces import SegmentRecord, Trace, read_traces, trace_line
from llenvs.traces.files import write_lines_atomically
from llenvs.workbench.search import MEANING_DTYPE, MeaningIndex, SearchMode, StepStore, search_steps

HEADING = "## Step search over 5,000 R1-length traces (`bench/step_search.py`)"
GOAL_RATE = 1000
"""Steps a second the issue asks the meaning index to be built at, on two cores."""
SAMPLE = ROOT / "sample_traces" / "thought_anchors-r1-distill-llama-8b.jsonl"
PER_FILE = 100
FIRST = 20
QUERIES = (
    ("a common word", "wait", SearchMode.TEXT),
    ("a rarer phrase", "circular permutation", SearchMode.TEXT),
    ("a regex", r"\d+ ways", SearchMode.REGEX),
)
MEANING_QUERY = "the number of ways to seat people around a round table"


def build_folder(folder: Path, traces: int) -> int:
    """Write ``traces`` perturbed R1-length traces to ``folder``; the number of steps."""
    sample = list(read_traces(SAMPLE))
    pool = [(s.text, s.annotations) for t in sample for s in t.segments]
    rng = np.random.default_rng(0)
    steps = 0
    lines: list[bytes] = []
    for i in range(traces):
        base = sample[i % len(sample)]
        length = int(rng.integers(250, 351))
        start = (i * 37) % len(pool)
        segments, at = [], 0
        for k in range(length):
            text, annotations = pool[(start + k) % len(pool)]
            text = re.sub(r"\d+", lambda m: str(int(m.group()) + i % 7), text)  # noqa: B023
            prm = float(rng.random())
            segments.append(
                SegmentRecord(
                    k,
                    at,
                    at + len(text),
                    text,
                    rewards={"prm": prm},
                    prm_scores={"prm": prm},
                    annotations=annotations,
                )
            )
            at += len(text)
        trace = Trace(
            task=base.task,
            run=base.run,
            response="".join(s.text for s in segments),
            segments=tuple(segments),
            success=bool(rng.random() < 0.6),
        )
        lines.append(trace_line(trace))
        steps += length
        if len(lines) == PER_FILE or i == traces - 1:
            write_lines_atomically(folder / f"r1-{i // PER_FILE:03d}.jsonl", lines)
            lines = []
    return steps


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _first_and_all(folder: Path, query: str, mode: SearchMode) -> tuple[float, float, int]:
    began = time.perf_counter()
    hits = search_steps([folder], query, mode, limit=FIRST)
    next(hits)
    first = time.perf_counter() - began
    list(hits)
    began = time.perf_counter()
    count = sum(1 for _ in search_steps([folder], query, mode))
    return first, time.perf_counter() - began, count


def _grep(files: list[Path], query: str, mode: SearchMode) -> tuple[float, int]:
    flag = "-E" if mode is SearchMode.REGEX else "-F"
    pattern = query.replace(r"\d", "[0-9]") if mode is SearchMode.REGEX else query
    began = time.perf_counter()
    done = subprocess.run(
        ["grep", "-c", "-i", flag, pattern, *map(str, files)], capture_output=True, text=True
    )
    seconds = time.perf_counter() - began
    return seconds, sum(int(line.rsplit(":", 1)[1]) for line in done.stdout.splitlines())


def run(traces: int, embed: int) -> str:
    """Build the folder, time everything, and return the section."""
    loads, started = os.getloadavg(), time.time()
    with tempfile.TemporaryDirectory(prefix="llenvs-search-bench-") as tmp:
        folder = Path(tmp)
        steps = build_folder(folder, traces)
        files = sorted(folder.glob("*.jsonl"))
        size = sum(f.stat().st_size for f in files)
        store = StepStore(folder)
        began = time.perf_counter()
        store.refresh(files, prune=True)
        build = time.perf_counter() - began
        began = time.perf_counter()
        store.refresh(files, prune=True)
        fresh = time.perf_counter() - began
        index_bytes = sum(p.stat().st_size for p in store.path.parent.iterdir())
        rows = [
            f"| step index: build, {len(files)} files | {build:.1f} s | "
            f"{steps / build:,.0f} steps/s | {index_bytes / 2**20:,.0f} MiB on disk "
            f"({index_bytes / steps * 1e6 / 2**30:.2f} GiB per million steps; the files "
            f"{size / 2**20:,.0f} MiB) |",
            f"| step index: the freshness check, nothing changed | {fresh * 1000:.0f} ms | | |",
        ]
        firsts = []
        for label, query, mode in QUERIES:
            first, whole, count = _first_and_all(folder, query, mode)
            firsts.append(first)
            grep, lines = _grep(files, query, mode)
            rows.append(
                f"| {label} (`{query}`): first {FIRST} hits | {first:.3f} s | "
                f"`grep -c` {grep:.2f} s ({first / grep:.2f}x) | all {count:,} hits in "
                f"{whole:.2f} s ({whole / grep:.1f}x grep; grep counts {lines:,} lines) |"
            )
        meaning, measured = _meaning_rows(store, folder, steps, embed)
        rows.extend(meaning)
        store.close()
    elapsed = time.time() - started
    header = "| what | time | rate or peer | notes |\n|---|---:|---|---|\n"
    return (
        f"{HEADING}\n\n"
        + run_line(f"bench/step_search.py --traces {traces} --embed {embed}", loads, elapsed)
        + f" {traces:,} traces, {steps:,} steps, built from the Thought Anchors sample (see the "
        "script). Text and regex times include each search's freshness check; the ratio is "
        "ours over the peer's. The meaning build rate is measured on the first "
        f"{embed:,} steps and extrapolated; the query runs against an index with one vector per "
        "step of the folder (the measured vectors repeated with noise).\n\n"
        + header
        + "\n".join(rows)
        + "\n\n"
        + _against_goals(max(firsts), *measured)
    )


def _against_goals(first: float, rate: float, added: float, query: float, disk: float) -> str:
    """The issue's goals beside what was measured, said plainly."""
    met = "meets" if rate >= GOAL_RATE else "**misses**"
    return (
        f"Against the issue's goals: text search's first results come in {first:.3f} s at most "
        f"(goal 1 s) and a meaning query in {query:.3f} s (goal 1 s); the meaning index takes "
        f"{disk:,.0f} MiB on disk per million steps (8-bit vectors and the graph), "
        f"memory-mapped for queries. Its build rate, {rate:,.0f} steps/s on "
        f"{os.cpu_count()} cores, {met} the goal of {GOAL_RATE:,} steps/s: the time is "
        "all-MiniLM-L6-v2's own (float32 torch on this CPU), not the index's (usearch adds "
        f"{added:,.0f} embedded vectors a second). The build runs in the background, keeps what "
        "it embedded when stopped, and embeds again only files whose text changed; an aligned "
        "diff of two traces of an indexed folder reads their stored vectors "
        "(`bench/aligned_diff.py`).\n"
    )


def _meaning_rows(
    store: StepStore, folder: Path, steps: int, embed: int
) -> tuple[list[str], tuple[float, float, float, float]]:
    """The meaning rows, and the embedding rate, the add rate, the query time, MiB per 1e6."""
    from usearch.index import Index

    ids = [i for (i,) in store.db.execute("SELECT id FROM steps ORDER BY id")]
    texts = [t for (t,) in store.db.execute(f"SELECT text FROM steps ORDER BY id LIMIT {embed}")]
    meaning = MeaningIndex(store)
    meaning.embed(["warm up"])
    began = time.perf_counter()
    vectors = meaning.embed(texts)
    rate = len(texts) / (time.perf_counter() - began)
    rng = np.random.default_rng(0)
    before = _rss()
    index = Index(ndim=vectors.shape[1], metric="cos", dtype=MEANING_DTYPE)
    began = time.perf_counter()
    for start in range(0, len(ids), 100_000):
        keys = np.array(ids[start : start + 100_000], dtype=np.uint64)
        block = vectors[np.arange(start, start + len(keys)) % len(vectors)]
        block = block + rng.normal(0, 0.02, block.shape).astype(np.float32)
        index.add(keys, block / np.linalg.norm(block, axis=1, keepdims=True))
    added = time.perf_counter() - began
    built_rss = _rss() - before
    index.save(str(meaning.path))
    del index
    disk = meaning.path.stat().st_size
    before = _rss()
    meaning.query(MEANING_QUERY, store.ids(sorted(folder.glob("*.jsonl"))), limit=FIRST)
    times = []
    for _ in range(5):
        began = time.perf_counter()
        hits = meaning.query(MEANING_QUERY, store.ids(sorted(folder.glob("*.jsonl"))), limit=FIRST)
        times.append(time.perf_counter() - began)
    loaded_rss = _rss() - before
    per_million = 1e6 / steps
    rows = [
        f"| meaning: all-MiniLM-L6-v2 embedding, {len(texts):,} steps | "
        f"{len(texts) / rate:.1f} s | {rate:,.0f} steps/s on {os.cpu_count()} cores | the whole "
        f"folder's {steps:,} steps would take {steps / rate / 60:,.0f} min at this rate |",
        f"| meaning: usearch add ({MEANING_DTYPE}), {steps:,} vectors already embedded | "
        f"{added:.1f} s | {steps / added:,.0f} vectors/s | {built_rss / 2**20 * per_million:,.0f} "
        "MiB resident per million steps while building |",
        f"| meaning: a query, {FIRST} nearest (embed the query, search, read the rows) | "
        f"{min(times):.3f} s | | {len(hits)} hits; the index {disk / 2**20:,.0f} MiB on disk "
        f"({disk / 2**20 * per_million:,.0f} MiB per million steps), memory-mapped: "
        f"{loaded_rss / 2**20:,.0f} MiB more resident after the queries |",
    ]
    return rows, (rate, steps / added, min(times), disk / 2**20 * per_million)


def main() -> None:
    """Parse the options, run, print and write the section."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--traces", type=int, default=5000, help="traces in the folder")
    parser.add_argument("--embed", type=int, default=2000, help="steps embedded for the rate")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    publish(HEADING, run(args.traces, args.embed), write=not args.no_write)


if __name__ == "__main__":
    main()
