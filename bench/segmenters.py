"""Segmenter benchmark: accuracy, throughput, streaming cost and step-boundary agreement.

Run from the repository root (the ``bench`` extra installs the peers)::

    .venv/bin/python bench/segmenters.py            # prints the table, updates docs/benchmarks.md
    .venv/bin/python bench/segmenters.py --no-write # prints only

Measures, in one run and on the same texts (``../shared/external``: the real responses and the
step traces, rebuilt as described in that folder's README):

* Golden Rules accuracy (48 English rules, pySBD's normalisation) and throughput (MB/s of UTF-8)
  of ``SentenceSegmenter`` beside pySBD, blingfire and NLTK Punkt (Punkt's pretrained data is not
  on PyPI and this machine is offline, so Punkt is trained here with ``PunktTrainer`` on the same
  texts). Throughput is timed as users call a splitter: one call per text, summed over the
  texts (pySBD's cost grows faster than the length of its text, so one call on all the texts
  joined would measure a text nobody splits). Like is compared with like: calls that return the
  sentences' texts (our ``segment``) with each other, calls that return offsets (our ``spans``)
  with each other;
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
from dataclasses import dataclass

from bench_common import best_seconds, main, read_jsonl

from llenvs.core.segmenters import (
    Segmenter,
    SentenceSegmenter,
    boundary_agreement,
    segmenter_from_spec,
)

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


def texts() -> list[str]:
    """The texts a user splits, one at a time: each real response, each rebuilt step trace."""
    responses = [row["response"] for row in read_jsonl("real_responses.jsonl")]
    return responses + [text for text, _ in step_texts()]


def corpus() -> str:
    """All the texts, one after another (Punkt's training text and the streaming sample)."""
    return "\n\n".join(texts())


@dataclass(frozen=True)
class Peer:
    """A sentence splitter: its Golden Rules split and the calls timed for throughput.

    ``texts`` returns the sentences' texts (like our ``segment``), ``offsets`` their character
    offsets (like our ``spans``); each is ``(how the call is shown, the call)`` or None.
    """

    name: str
    split: Splitter
    texts: tuple[str, Callable[[str], object]] | None
    offsets: tuple[str, Callable[[str], object]] | None
    repeat: int = 5


def peers(training_text: str) -> list[Peer]:
    """Our ``SentenceSegmenter`` and its peers."""
    import blingfire
    import pysbd
    from nltk.tokenize.punkt import PunktSentenceTokenizer, PunktTrainer

    ours = SentenceSegmenter()
    sbd = pysbd.Segmenter(language="en", clean=False)
    sbd_spans = pysbd.Segmenter(language="en", clean=False, char_span=True)
    trainer = PunktTrainer()
    trainer.INCLUDE_ALL_COLLOCS = True
    trainer.train(training_text, finalize=True)
    punkt = PunktSentenceTokenizer(trainer.get_params())

    def bling_texts(text: str) -> list[str]:
        return str(blingfire.text_to_sentences(text)).split("\n")

    naive = re.compile(r"(?<=[.!?])\s+")
    return [
        Peer(OURS, ours.segment, ("`segment`", ours.segment), ("`spans`", ours.spans)),
        Peer(
            PYSBD,
            sbd.segment,
            ("`segment`", sbd.segment),
            ("`segment` (`char_span=True`)", sbd_spans.segment),
            repeat=2,
        ),
        Peer(
            BLINGFIRE,
            bling_texts,
            ("`text_to_sentences` (split at `\\n`)", bling_texts),
            ("`text_to_sentences_and_offsets`", blingfire.text_to_sentences_and_offsets),
        ),
        Peer(
            PUNKT,
            punkt.tokenize,
            ("`tokenize`", punkt.tokenize),
            ("`span_tokenize`", lambda text: list(punkt.span_tokenize(text))),
        ),
        Peer("naive regex `(?<=[.!?])\\s+`", naive.split, ("`re.split`", naive.split), None),
    ]


OURS = "llenvs SentenceSegmenter"
PYSBD = "pySBD 0.3.4"
BLINGFIRE = "blingfire"
PUNKT = "NLTK Punkt (trained here)"


def per_text_speed(call: Callable[[str], object], pieces: Sequence[str], repeat: int) -> float:
    """MB/s of ``call`` made once per text, summed over ``pieces`` (best of ``repeat`` passes)."""
    megabytes = sum(len(text.encode()) for text in pieces) / 1e6
    call(pieces[0])  # warm up (compiled patterns, caches)

    def one_pass() -> None:
        for text in pieces:
            call(text)

    return megabytes / best_seconds(one_pass, repeat)


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


def ratio(value: float) -> str:
    """A speed ratio: whole above 10, two decimals below."""
    return f"{value:.0f}×" if value >= 10 else f"{value:.2f}×"


def run() -> str:
    """Run every measurement and return the markdown section."""
    pieces = texts()
    text = corpus()
    megabytes = sum(len(piece.encode()) for piece in pieces) / 1e6
    splitters = peers(text)
    lines = [
        HEADING,
        "",
        f"Command: `{COMMAND}` — run {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC "
        f"on {platform.machine()}, Python {platform.python_version()}.",
        f"Texts: `real_responses.jsonl` + `step_traces.jsonl` rebuilt, {len(pieces)} texts "
        f"({sum(map(len, pieces)):,} characters, {megabytes:.2f} MB; the longest "
        f"{max(map(len, pieces)):,} characters), each split by its own call.",
        "",
        "| splitter | Golden Rules (of 48) | failing | returns texts | MB/s | returns offsets | "
        "MB/s |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    speeds: dict[tuple[str, str], float] = {}
    for peer in splitters:
        passed, failing = golden_rules(peer.split)
        shown = ", ".join(failing) if len(failing) <= 6 else f"{len(failing)} ids"
        cells = [f"{peer.name}", str(passed), shown or "—"]
        for kind, timed in (("texts", peer.texts), ("offsets", peer.offsets)):
            if timed is None:
                cells += ["—", "—"]
                continue
            speed = per_text_speed(timed[1], pieces, peer.repeat)
            speeds[peer.name, kind] = speed
            cells += [timed[0], f"{speed:.2f}"]
            print(f"{peer.name} {timed[0]}: {speed:.2f} MB/s", file=sys.stderr)
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "Ours against each peer, the same kind of result (speed ratio, per text):",
        "",
        "| llenvs | peer | llenvs ÷ peer |",
        "| --- | --- | --- |",
    ]
    by_name = {peer.name: peer for peer in splitters}
    for kind in ("texts", "offsets"):
        ours_call = by_name[OURS].texts if kind == "texts" else by_name[OURS].offsets
        assert ours_call is not None
        for peer in splitters[1:]:
            call = peer.texts if kind == "texts" else peer.offsets
            if call is None:
                continue
            lines.append(
                f"| {ours_call[0]} | {peer.name} {call[0]} | "
                f"{ratio(speeds[OURS, kind] / speeds[peer.name, kind])} |"
            )
    lines += [
        "",
        "Notes: Golden Rules use `[s.strip() for s in split(text) if s.strip()] == sentences`. "
        "Throughput: every text split by its own call, as a user calls a splitter, the time "
        "summed over the texts; the best of 5 passes (pySBD: 2). pySBD runs with "
        "`clean=False`; its cost grows faster than the length of its text, so timing one call "
        "on all the texts joined (as an earlier version of this table did) made it look far "
        "slower (0.02 MB/s) than it is on texts of this size. blingfire's `text_to_sentences` "
        "returns one string, split at its newlines here to give the list of sentences the "
        "others give. NLTK's pretrained Punkt model is not on PyPI and this machine is "
        "offline, so Punkt is trained with `PunktTrainer` on these same texts (which favours "
        "it on them). The machine is shared and its absolute speeds vary between runs; the "
        "ratios, measured in the same run, are the figures to compare.",
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
