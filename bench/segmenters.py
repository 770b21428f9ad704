"""Segmenter benchmark: accuracy, throughput, streaming cost and step-boundary agreement.

Run from the repository root (the ``bench`` extra installs the peers)::

    .venv/bin/python bench/segmenters.py            # prints the table, updates docs/benchmarks.md
    .venv/bin/python bench/segmenters.py --no-write # prints only

Measures, in one run and on the same texts (``../shared/external``: the real responses and the
step traces, rebuilt as described in that folder's README):

* Golden Rules accuracy (48 English rules, pySBD's normalisation) and throughput (MB/s of UTF-8)
  of ``SentenceSegmenter`` beside pySBD, blingfire and NLTK Punkt (Punkt's pretrained data is not
  on PyPI and this machine is offline, so Punkt is trained here with ``PunktTrainer`` on the same
  texts);
* streaming cost of ``stream()`` and of the pure ``find_boundary`` loop in 16-character chunks
  against one ``segment()`` call at 10 KB, 100 KB and 1 MB (per-KB cost; the 1 MB / 10 KB ratio
  is 1.0 for a linear cost);
* boundary precision / recall / F1 of each of our segmenters against the human step starts.
"""

from __future__ import annotations

import datetime
import platform
import re
import sys
import time
from collections.abc import Callable, Sequence

from bench_common import best_seconds, main, read_jsonl

from llenvs.core.segmenters import Segmenter, SentenceSegmenter, segmenter_from_spec
from llenvs.core.segmenters.boundary_agreement import boundary_agreement

HEADING = "## Segmenters (`bench/segmenters.py`)"
COMMAND = ".venv/bin/python bench/segmenters.py"
SPECS = (
    "sentence",
    "line",
    "line:\\n\\n",
    "pattern",
    "token:64:cl100k_base",
    "composite:line:\\n\\n+sentence",
)
"""Our segmenters for the step-boundary table (the last one is the default "steps")."""

Splitter = Callable[[str], list[str]]


def step_texts() -> list[tuple[str, list[int]]]:
    """Each step trace rebuilt as one response, with the offsets where its human steps start.

    ProcessBench steps are paragraphs (joined with a blank line); PRM800K steps are lines.
    """
    result = []
    for row in read_jsonl("step_traces.jsonl"):
        joiner = "\n" if row["dataset"] == "prm800k" else "\n\n"
        starts, offset = [], 0
        for step in row["steps"]:
            starts.append(offset)
            offset += len(step) + len(joiner)
        result.append((joiner.join(row["steps"]), starts[1:]))
    return result


def corpus() -> str:
    """The real responses and the rebuilt step traces, one after another."""
    responses = [row["response"] for row in read_jsonl("real_responses.jsonl")]
    return "\n\n".join(responses + [text for text, _ in step_texts()])


def peers(training_text: str) -> dict[str, tuple[Splitter, Callable[[str], object]]]:
    """Name -> (sentence splitter for Golden Rules, the call timed for throughput)."""
    import blingfire
    import pysbd
    from nltk.tokenize.punkt import PunktSentenceTokenizer, PunktTrainer

    ours = SentenceSegmenter()
    sbd = pysbd.Segmenter(language="en", clean=False)
    trainer = PunktTrainer()
    trainer.INCLUDE_ALL_COLLOCS = True
    trainer.train(training_text, finalize=True)
    punkt = PunktSentenceTokenizer(trainer.get_params())
    return {
        "llenvs SentenceSegmenter": (ours.segment, ours.spans),
        "pySBD 0.3.4": (sbd.segment, sbd.segment),
        "blingfire": (
            lambda text: blingfire.text_to_sentences(text).split("\n"),
            blingfire.text_to_sentences_and_offsets,
        ),
        "NLTK Punkt (trained here)": (punkt.tokenize, lambda text: list(punkt.span_tokenize(text))),
        "naive regex `(?<=[.!?])\\s+`": (
            lambda text: re.split(r"(?<=[.!?])\s+", text),
            lambda text: re.split(r"(?<=[.!?])\s+", text),
        ),
    }


def golden_rules(split: Splitter) -> tuple[int, list[str]]:
    """Golden Rules passed and the failing ids, with the README's normalisation."""
    failing = []
    for row in read_jsonl("golden_rules_en.jsonl"):
        got = [piece.strip() for piece in split(row["text"]) if piece.strip()]
        if got != row["sentences"]:
            failing.append(row["id"])
    return 48 - len(failing), failing


def stream_pieces(segmenter: Segmenter, text: str) -> list[str]:
    """The pieces of ``segmenter.stream()`` fed 16-character chunks."""
    stream = segmenter.stream()
    pieces: list[str] = []
    for at in range(0, len(text), 16):
        pieces.extend(stream.feed(text[at : at + 16]))
    return pieces + stream.close()


def boundary_loop_pieces(segmenter: Segmenter, text: str) -> list[str]:
    """The pure ``find_boundary`` loop over 16-character chunks."""
    buffer, pieces = "", []
    for at in range(0, len(text), 16):
        buffer += text[at : at + 16]
        while (cut := segmenter.find_boundary(buffer)) is not None:
            pieces.append(buffer[:cut])
            buffer = buffer[cut:]
    return pieces + segmenter.pieces(buffer)


def sized(text: str, size: int) -> str:
    """``text`` repeated and cut to ``size`` characters."""
    return (text * (size // len(text) + 1))[:size]


def boundary_scores(
    segmenter: Segmenter, traces: Sequence[tuple[str, list[int]]]
) -> tuple[float, float, float]:
    """Micro precision, recall and F1 of the segmenter's cuts against the human step starts.

    ``BoundaryAgreement`` moves both sides to the first non-whitespace character at or after
    the cut, so a cut before or after the blank line between two steps is the same boundary.
    """
    agreement = boundary_agreement(segmenter, traces)
    return agreement.precision, agreement.recall, agreement.f1


def run() -> str:
    """Run every measurement and return the markdown section."""
    text = corpus()
    megabytes = len(text.encode()) / 1e6
    splitters = peers(text)
    lines = [
        HEADING,
        "",
        f"Command: `{COMMAND}` — run {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC "
        f"on {platform.machine()}, Python {platform.python_version()}.",
        f"Texts: `real_responses.jsonl` + `step_traces.jsonl` rebuilt ({len(text):,} characters, "
        f"{megabytes:.2f} MB).",
        "",
        "| splitter | Golden Rules (of 48) | failing | MB/s | vs pySBD | vs blingfire |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    speeds: dict[str, float] = {}
    scores: dict[str, tuple[int, list[str]]] = {}
    for name, (split, timed) in splitters.items():
        scores[name] = golden_rules(split)
        repeat = 1 if name.startswith("pySBD") else 5
        speeds[name] = megabytes / best_seconds(lambda timed=timed: timed(text), repeat)  # type: ignore[misc]
        print(f"{name}: {scores[name][0]}/48, {speeds[name]:.2f} MB/s", file=sys.stderr)
    sbd, bling = speeds["pySBD 0.3.4"], speeds["blingfire"]
    for name in splitters:
        passed, failing = scores[name]
        shown = ", ".join(failing) if len(failing) <= 6 else f"{len(failing)} ids"
        lines.append(
            f"| {name} | {passed} | {shown or '—'} | {speeds[name]:.2f} | "
            f"{speeds[name] / sbd:.0f}× | {speeds[name] / bling:.2f}× |"
        )
    lines += [
        "",
        "Notes: Golden Rules use `[s.strip() for s in split(text) if s.strip()] == sentences`. "
        "Throughput is the best of 5 calls (pySBD: 1) over the whole text: `spans()` for ours, "
        "`text_to_sentences_and_offsets` for blingfire, `span_tokenize` for Punkt, `segment` "
        "(clean=False) for pySBD. NLTK's pretrained Punkt model is not on PyPI and this machine "
        "is offline, so Punkt is trained with `PunktTrainer` on these same texts (which favours "
        "it on them). The machine is shared and its absolute speeds vary between runs (the "
        "issue measured pySBD at 0.27 MB/s and blingfire at 24 MB/s elsewhere); the ratios, "
        "measured in the same run, are the figures to compare.",
        "",
    ]
    lines += streaming_rows(text)
    lines += boundary_rows()
    return "\n".join(lines) + "\n"


def streaming_rows(text: str) -> list[str]:
    """Streaming cost in 16-character chunks against one ``segment()`` call."""
    rows = [
        "Streaming, 16-character chunks, on 10 KB of the step traces repeated to each size "
        "(µs per KB, best of 5 interleaved rounds; ratio = per-KB cost at 1 MB / at 10 KB, "
        "1.0 when the cost is linear):",
        "",
        "| segmenter | call | 10 KB | 100 KB | 1 MB | 1 MB / 10 KB |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    # The same 10 KB of the texts (a stretch of step traces, past the responses) repeated, so
    # that the three sizes differ only in length.
    unit = text[len(text) // 2 : len(text) // 2 + 10_000]
    for spec in ("sentence", "composite:line:\\n\\n+sentence"):
        segmenter = segmenter_from_spec(spec)
        calls: dict[str, Callable[[str], object]] = {
            "segment()": segmenter.segment,
            "stream()": lambda t, s=segmenter: stream_pieces(s, t),
            "find_boundary loop": lambda t, s=segmenter: boundary_loop_pieces(s, t),
        }
        for name, call in calls.items():
            costs = interleaved_costs(call, unit)
            rows.append(
                f"| `{spec}` | {name} | {costs[0]:.0f} | {costs[1]:.0f} | {costs[2]:.0f} | "
                f"{costs[2] / costs[0]:.2f} |"
            )
            print(f"{spec} {name}: {costs}", file=sys.stderr)
        sample = sized(text, 100_000)
        assert stream_pieces(segmenter, sample) == segmenter.pieces(sample), "stream != replay"
    return [*rows, ""]


def interleaved_costs(call: Callable[[str], object], unit: str) -> list[float]:
    """µs per KB of ``call`` at 10 KB, 100 KB and 1 MB (``unit`` repeated).

    Each round times every size once (10 KB 100 times, 100 KB 10 times, 1 MB once, so every
    timing covers 1 MB of text); the best of 5 rounds counts. Interleaving spreads the noise of
    a shared machine over the three sizes alike.
    """
    sizes = {10_000: 100, 100_000: 10, 1_000_000: 1}
    samples = {size: sized(unit, size) for size in sizes}
    call(samples[10_000])  # warm up
    best = dict.fromkeys(sizes, float("inf"))
    for _ in range(5):
        for size, times in sizes.items():
            started = time.perf_counter()
            for _ in range(times):
                call(samples[size])
            best[size] = min(best[size], (time.perf_counter() - started) / times)
    return [best[size] / (size / 1000) * 1e6 for size in sizes]


def boundary_rows() -> list[str]:
    """Boundary precision / recall / F1 of our segmenters against the human steps."""
    traces = step_texts()
    rows = [
        f"Step boundaries against the human steps of `step_traces.jsonl` ({len(traces)} traces, "
        f"{sum(len(s) for _, s in traces)} boundaries; ProcessBench steps joined with a blank "
        "line, PRM800K with a newline; a boundary matches when both fall on the same first "
        "non-whitespace character; micro-averaged):",
        "",
        "| segmenter | precision | recall | F1 |",
        "| --- | --- | --- | --- |",
    ]
    for spec in SPECS:
        precision, recall, f1 = boundary_scores(segmenter_from_spec(spec), traces)
        rows.append(f"| `{spec}` | {precision:.3f} | {recall:.3f} | {f1:.3f} |")
    return [*rows, ""]


if __name__ == "__main__":
    main(run, HEADING, __doc__.splitlines()[0] if __doc__ else None)
