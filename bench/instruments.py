"""The instruments' cost on one sample trace, each against the work it sits beside.

On the embedded SmolLM2-135M-Instruct (float32, this machine's CPU), in one run:

- **How on-policy a Force is** (``on_policy``, 16 samples): the tour's first Force
  (``letter_counting-smollm2.jsonl`` line 14, segment 0, "The answer to this question is 2.").
  Peer: the branch Generate makes of the same Force (``intervene`` without the score), which
  the score is computed before.
- **Does removed content come back** (``content_returns``): the 48 stored rollouts of
  ``products-smollm2.jsonl`` line 1, with all-MiniLM-L6-v2 (its load included, as a first use
  in a process) and with the lexical fallback. Peer: reading the same stored step values
  (``stored_step_analysis``), which the panel does anyway.
- **Which step led to which** (``step_matrix``): the same 48 rollouts, each compared with every
  later step rather than the one it replaced. Peer: ``content_returns`` with the same similarity.
- **An on-policy substitute** for that Force (``Substitute``, up to 16 tries, MiniLM already
  loaded), then the rest. Peer: the branch Generate makes of the Force itself.
- **Inside the model** (``attention_suppression``): products line 1, every step masked in turn,
  then the receiver heads' pass. Peer: one teacher-forced pass over the same response
  (``capabilities.score``), the cheapest reading of the trace by the model. And the masked
  passes alone, each batch started from the unmasked run's cache, against the same passes each
  over the whole trace (before the cache).
- **Does the segmenter change which step mattered** (``compare_segmenters``, three cuts: steps,
  sentence, token:16, ``BUDGET`` rollouts each). Peer: one step-value analysis of the trace as
  recorded with the same budget (``analyze_trace``): the comparison is that, once per cut.

Each timing is the median of ``REPEAT`` runs in a fresh temporary folder (nothing read back).
The ratio is the instrument's time over its peer's, measured in the same run.
"""

from __future__ import annotations

import platform
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_common import ROOT, main

from llenvs.analysis import (
    AnalysisParams,
    LexicalSimilarity,
    MiniLMSimilarity,
    analysis_path,
    analyze_trace,
    compare_segmenters,
    content_returns,
    stored_keys,
    stored_step_analysis,
)
from llenvs.analysis.instruments import _attention, attention_suppression, step_matrix
from llenvs.core import Force, Substitute
from llenvs.evaluation import BranchRequest, intervene
from llenvs.evaluation.branching import on_policy, prefix_prompt, substitution_from_record
from llenvs.inference._backends.transformers_loading import get_embedded_backend
from llenvs.traces import read_traces

HEADING = "## The instruments: on-policy, returning content, segmenters"
SAMPLES = ROOT / "sample_traces"
LETTERS = SAMPLES / "letter_counting-smollm2.jsonl"
PRODUCTS = SAMPLES / "products-smollm2.jsonl"
FORCED = "The answer to this question is 2."
BUDGET = 16
"""Rollouts per cut of the segmenter comparison, and of its peer."""
REPEAT = 3


def _median(call: Callable[[], object]) -> float:
    times = []
    for _ in range(REPEAT):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _seconds(value: float) -> str:
    """Seconds to 3 significant digits (a read of a few milliseconds is not 0.00)."""
    return f"{value:.3g}"


def _in_a_copy(call: Callable[[Path], object], *files: Path) -> Callable[[], object]:
    """``call`` on copies of ``files`` in a fresh folder each time (nothing read back)."""

    def run() -> object:
        with tempfile.TemporaryDirectory() as folder:
            for path in files:
                shutil.copy(path, Path(folder) / path.name)
            return call(Path(folder))

    return run


def run() -> str:
    """Time every instrument and its peer; the markdown section."""
    backend = get_embedded_backend()
    letters = list(read_traces(LETTERS))[13]
    products = next(iter(read_traces(PRODUCTS)))
    rows = []

    def force(folder: Path) -> object:
        request = BranchRequest(letters, 0, Force(FORCED))
        return intervene(folder / LETTERS.name, request, backend)

    scored = on_policy(letters, 0, FORCED, backend, samples=16)
    op = _median(lambda: on_policy(letters, 0, FORCED, backend, samples=16))
    branch = _median(_in_a_copy(force, LETTERS))
    rows.append(("how on-policy a Force is (16 samples)", op, "the branch Generate makes", branch))
    minilm_loaded = MiniLMSimilarity()
    asked = Substitute(FORCED, tries=16, similarity=0.8, seed=0)

    def substitute(folder: Path) -> object:
        request = BranchRequest(letters, 0, asked)
        return intervene(folder / LETTERS.name, request, backend, similarity=minilm_loaded)

    made = _in_a_copy(substitute, LETTERS)()
    assert isinstance(made, list)
    chosen = substitution_from_record(made[0].metadata["substitute"])
    rows.append(
        (
            f"substitute for that Force, then the rest (up to 16 tries: {chosen.tries} made, "
            f"similarity {chosen.similarity:.2f}; MiniLM loaded)",
            _median(_in_a_copy(substitute, LETTERS)),
            "the branch Generate makes",
            branch,
        )
    )

    store = analysis_path(PRODUCTS)
    key = next(k for k in stored_keys(store, products.trace_id) if k.get("temperature") == 0.7)
    analysis = stored_step_analysis(products, store, key)
    read = _median(lambda: stored_step_analysis(products, store, key))
    lexical = _median(lambda: content_returns(products, analysis, similarity=LexicalSimilarity()))
    minilm = _median(lambda: content_returns(products, analysis, similarity=MiniLMSimilarity()))
    peer = "reading the stored step values"
    name = f"content returning, MiniLM with its load ({len(analysis.rollouts)} rollouts)"
    rows.append((name, minilm, peer, read))
    rows.append(
        (f"content returning, lexical ({len(analysis.rollouts)} rollouts)", lexical, peer, read)
    )
    matrix_minilm = _median(lambda: step_matrix(products, analysis, similarity=MiniLMSimilarity()))
    matrix_lexical = _median(
        lambda: step_matrix(products, analysis, similarity=LexicalSimilarity())
    )
    count = len(analysis.rollouts)
    rows.append(
        (
            f"step-to-step matrix, MiniLM with its load ({count} rollouts)",
            matrix_minilm,
            "content returning, MiniLM with its load",
            minilm,
        )
    )
    rows.append(
        (
            f"step-to-step matrix, lexical ({count} rollouts)",
            matrix_lexical,
            "content returning, lexical",
            lexical,
        )
    )

    suppression = _median(lambda: attention_suppression(products, backend))
    prompt = prefix_prompt(products, 0)
    scored_once = _median(lambda: backend.capabilities.score([(prompt, products.response)]))
    found = attention_suppression(products, backend)
    rows.append(
        (
            f"attention suppression and receiver heads ({found.steps} steps, {found.tokens} "
            "tokens)",
            suppression,
            "one teacher-forced pass over the response (score)",
            scored_once,
        )
    )

    weights = backend.capabilities.weights()
    layout = _attention._layout(products, weights)

    def masked(share: bool) -> Callable[[], object]:
        def run() -> object:
            with weights.turn():
                steps = len(products.segments)
                return _attention._suppression(
                    weights.model, *layout, steps, (4, None, None), share_prefix=share
                )

        return run

    rows.append(
        (
            "the masked passes, each batch from the unmasked run's cache",
            _median(masked(True)),
            "the same passes, each over the whole trace",
            _median(masked(False)),
        )
    )

    params = AnalysisParams(budget=BUDGET, max_tokens=80, seed=0)
    specs = ["steps", "sentence", "token:16"]

    def compare(folder: Path) -> object:
        store = analysis_path(folder / PRODUCTS.name)
        return compare_segmenters(products, specs, backend, params, store=store)

    def one(folder: Path) -> object:
        return analyze_trace(products, backend, params, store=analysis_path(folder / PRODUCTS.name))

    compared = _median(_in_a_copy(compare, PRODUCTS))
    single = _median(_in_a_copy(one, PRODUCTS))
    rows.append(
        (
            f"segmenters, 3 cuts x {BUDGET} rollouts",
            compared,
            f"one analysis, {BUDGET} rollouts",
            single,
        )
    )
    lines = [
        HEADING,
        "",
        f"`bench/instruments.py`, embedded SmolLM2-135M-Instruct, float32, on {platform.machine()}"
        f" (Python {platform.python_version()}, a shared machine). Medians of {REPEAT} runs; each "
        "instrument against the work it sits beside, in the same run. The tour's Force scores "
        f"{scored.mean_logprob:.2f} per token over {scored.tokens} tokens, the "
        f"{scored.percentile:.0f}th percentile of 16 continuations of the model's own (the "
        f"replaced segment: {scored.original:.2f}).",
        "",
        "| instrument | time (s) | peer | peer (s) | ratio |",
        "|---|---|---|---|---|",
    ]
    for name, seconds, peer_name, peer_seconds in rows:
        lines.append(
            f"| {name} | {_seconds(seconds)} | {peer_name} | {_seconds(peer_seconds)} | "
            f"{seconds / peer_seconds:.1f}x |"
        )
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    main(run, HEADING, __doc__)
