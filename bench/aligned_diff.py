"""The aligned diff of two 321-step traces, against the plain diffs it replaces, in one run.

Run from the repository root::

    .venv/bin/python bench/aligned_diff.py              # written to docs/benchmarks.md
    .venv/bin/python bench/aligned_diff.py --no-write

The trace is the Thought Anchors sample's 321-step response (``sample_traces/
thought_anchors-r1-distill-llama-8b.jsonl``, line 3: DeepSeek-R1-Distill-Llama-8B on MATH
problem 4164). Two pairs:

- **a few edits**: the trace against a copy with ``EDITS`` steps changed by a character or
  two, ``EDITS`` inserted, ``EDITS`` removed and one said again in other words;
- **a branch at step 160**: the trace against one that keeps its first 160 steps and goes on
  with the 204-step sample's (line 1) last 161, as a resample from step 160 would: one
  replaced block of 161 by 161 steps, which the similarity pairs by meaning.

Each pair is aligned with the lexical similarity and with all-MiniLM-L6-v2 (its load timed
apart, once, as a first use in a process). The peers, timed on the same pairs in the same run:
``difflib.unified_diff`` of the two responses' lines (what ``diff`` would print), and Browse's
current branch comparison (``aligned_segments``: segment k against segment k, no alignment).
Each time is the fastest of ``REPEAT`` runs.
"""

from __future__ import annotations

import difflib
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench_common import ROOT, best_seconds, main, run_line

from llenvs.analysis.instruments import (
    MINILM,
    AlignedDiff,
    LexicalSimilarity,
    MiniLMSimilarity,
    TextSimilarity,
    align_traces,
    minilm_archive,
)
from llenvs.traces import SegmentRecord, Trace, read_traces, write_traces
from llenvs.workbench import aligned_segments
from llenvs.workbench.search import StoredSimilarity, build_meaning_index, stored_vectors

HEADING = "## Two traces aligned step by step (`bench/aligned_diff.py`)"
SAMPLE = ROOT / "sample_traces" / "thought_anchors-r1-distill-llama-8b.jsonl"
EDITS = 3
"""Steps changed, inserted and removed (each) in the first pair."""
BRANCH_AT = 160
REPEAT = 5
GOAL = 0.5
"""Seconds the issue allows for the aligned diff of two 321-step traces."""


def _with_texts(trace: Trace, texts: Sequence[str]) -> Trace:
    """``trace`` with its segments' texts replaced by ``texts`` (the response joined from them)."""
    segments, start = [], 0
    for index, text in enumerate(texts):
        segments.append(SegmentRecord(index, start, start + len(text), text))
        start += len(text)
    return Trace(task=trace.task, response="".join(texts), segments=tuple(segments))


def _edited(trace: Trace) -> Trace:
    """``trace`` with ``EDITS`` steps changed, inserted and removed, and one paraphrased."""
    texts = [segment.text for segment in trace.segments]
    step = len(texts) // (4 * EDITS + 2)
    for k in range(EDITS):
        at = step * (k + 1)
        texts[at] = texts[at].replace("e", "E", 2) if "e" in texts[at] else texts[at] + "!"
    for k in range(EDITS):
        texts.insert(step * (EDITS + 1 + k), f"Let me check that once more ({k}). ")
    for k in range(EDITS):
        del texts[step * (2 * EDITS + 1 + k)]
    words = texts[step * (3 * EDITS + 1)].split(" ")
    texts[step * (3 * EDITS + 1)] = " ".join(reversed(words))
    return _with_texts(trace, texts)


def _branched(trace: Trace, other: Trace) -> Trace:
    """``trace``'s first ``BRANCH_AT`` steps, then ``other``'s last ones (as many as were cut)."""
    kept = [segment.text for segment in trace.segments[:BRANCH_AT]]
    tail = [segment.text for segment in other.segments[-(len(trace.segments) - BRANCH_AT) :]]
    return _with_texts(trace, kept + tail)


def _shape(diff: AlignedDiff) -> str:
    counts = ", ".join(f"{n} {op.value}" for op, n in diff.counts().items() if n)
    first = diff.first_difference
    at = "" if first is None else f"; first part at step {first.a}"
    return f"{counts}{at}"


def _embedded_now(similarity: TextSimilarity) -> str:
    """For the stored vectors: how many texts the index lacked (embedded during the runs)."""
    if not isinstance(similarity, StoredSimilarity):
        return ""
    return f"; {similarity.embedded_now} texts not in the index, embedded then"


def run() -> str:
    """Time both pairs with both similarities and both peers; return the markdown section."""
    loads = os.getloadavg()
    started = time.time()
    traces = list(read_traces(SAMPLE))
    parent, other = traces[2], traces[0]
    if len(parent.segments) != 321:
        raise SystemExit(f"{SAMPLE} line 3 has {len(parent.segments)} steps, not 321")
    pairs = {
        f"a few edits ({EDITS} changed, {EDITS} inserted, {EDITS} removed, 1 paraphrased)": (
            parent,
            _edited(parent),
        ),
        f"a branch at step {BRANCH_AT} ({len(parent.segments) - BRANCH_AT} steps replaced)": (
            parent,
            _branched(parent, other),
        ),
    }
    similarities: dict[str, TextSimilarity] = {"lexical": LexicalSimilarity()}
    load = None
    if minilm_archive() is not None:
        minilm = MiniLMSimilarity()
        load_started = time.perf_counter()
        minilm.embed(["warm up"])
        load = time.perf_counter() - load_started
        similarities[MINILM] = minilm
    rows = [
        "| pair | aligned by | aligned diff (s) | `unified_diff` of the lines (s) | ratio | "
        "Browse's branch comparison (s) | ratio | within 0.5 s | what it found |",
        "|---|---|---:|---:|---:|---:|---:|---|---|",
    ]
    stored_note = ""
    if MINILM in similarities:
        folder = Path(tempfile.mkdtemp())
        path = folder / "pairs.jsonl"
        write_traces(path, [t for pair in pairs.values() for t in pair])
        built = time.perf_counter()
        made = build_meaning_index([folder])
        built = time.perf_counter() - built
        stored_note = (
            f" The rows *from the stored index* read each step's vector from the folder's "
            f"meaning index (`stored_vectors`, as step search builds it: {made.embedded} steps "
            f"embedded in {built:.1f} s, once, not in the times); a text it lacks would be "
            "embedded then."
        )
    for number, (label, (a, b)) in enumerate(pairs.items()):
        lines_a, lines_b = a.response.splitlines(), b.response.splitlines()
        if stored_note:
            vectors = {
                **stored_vectors(path, 2 * number + 1),
                **stored_vectors(path, 2 * number + 2),
            }
            similarities[f"{MINILM} from the stored index"] = StoredSimilarity(vectors)
        plain = best_seconds(lambda: list(difflib.unified_diff(lines_a, lines_b)), REPEAT)  # noqa: B023
        browse = best_seconds(lambda: aligned_segments(a, b), REPEAT)  # noqa: B023
        for name, similarity in similarities.items():
            diff = align_traces(a, b, similarity)
            ours = best_seconds(lambda: align_traces(a, b, similarity), REPEAT)  # noqa: B023
            rows.append(
                f"| {label} | text, then {name} | {ours:.3g} | {plain:.3g} | {ours / plain:.1f}x "
                f"| {browse:.3g} | {ours / browse:.1f}x | {'yes' if ours <= GOAL else 'no'} "
                f"| {_shape(diff)} (method: {diff.method}){_embedded_now(similarity)} |"
            )
    elapsed = time.time() - started
    loaded = (
        f" all-MiniLM-L6-v2's load, once per process, took {load:.2f} s and is not in the "
        "times (the CLI pays it only when a replaced block leaves segments of both sides "
        "unpaired)."
        if load is not None
        else " all-MiniLM-L6-v2 is not installed here: lexical rows only."
    )
    return (
        f"{HEADING}\n\n"
        + run_line("bench/aligned_diff.py", loads, elapsed)
        + f" `align_traces` on the 321-step Thought Anchors trace against two copies; the fastest "
        f"of {REPEAT} runs. The peers do less: `unified_diff` compares lines of the two "
        "responses with no steps, pairing or numbers; Browse's comparison sets segment k "
        "beside segment k, so one inserted step shifts every row after it. Ratio: the aligned "
        f"diff's time over the peer's.{loaded}{stored_note}\n\n" + "\n".join(rows) + "\n"
    )


if __name__ == "__main__":
    main(run, HEADING, __doc__)
