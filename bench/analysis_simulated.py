"""Step analysis on simulated traces: which schedule finds the true top-3 steps, on a budget.

Run from the repository root (no model; 200 traces took 8 minutes on a busy 2-core machine)::

    .venv/bin/python bench/analysis_simulated.py            # 200 traces; writes its section
    .venv/bin/python bench/analysis_simulated.py --traces 5 --no-write  # prints it only

The section it prints replaces its own in ``docs/benchmarks.md`` (``bench_common``), with the
command, the date and the machine: nothing in it is transcribed by hand.

Each simulated trace has 8-20 boundaries and a known value curve: mostly flat (steps of a
couple of points, Gaussian) with 1-3 jumps of 0.1-0.6, up or down. The coin backend
(``tests/analysis/coin_backend.py``) continues the trace from before segment i with a right
answer with probability ``v_i``, and ``analyze_trace`` runs as it does on a model. Passes, each
at its own run seed: two independent fixed references of k = 32 rollouts per boundary
(``FixedSchedule``; seeds 0 and 2), and at 25% of that budget (seed 1, so the three share their
first rollouts) the fixed schedule, the width-driven adaptive schedule
(``AdaptiveSchedule(top_k=0)``, the former default) and the top-3 one (``AdaptiveSchedule()``).
For each: how often its top-3 steps (``StepAnalysis.ranking``) are the true top-3 set, its top
step the true top step, every jump (true ``|Δ| >= 0.1``) among its top-3, and its top-3 the
same set as reference A's (the issue's criterion; for reference B, that is the split-half
agreement: the ceiling of that criterion), its top-3 agreeing with reference A where A is
sure (``TopSteps.agrees``: it holds every step A puts in its top 3 with a chance of at least
0.95 and none A rules out; the criterion of ``bench/analysis.py``, which a second reference
meets about as often as the confidence says), its top step the same as A's, and its true top
step found when the steps are ranked by the raw differences ``|v_{i+1} - v_i|`` of the
estimates instead of the changepoint posterior (what the ranking gains).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import itertools
import platform
import random
import sys
import time
from collections.abc import Callable

from bench_common import ROOT, publish

sys.path.insert(0, str(ROOT))  # tests.analysis.coin_backend

from llenvs.analysis import (
    AdaptiveSchedule,
    AnalysisParams,
    FixedSchedule,
    Schedule,
    TopSteps,
    analyze_trace,
)
from llenvs.evaluation import trace_environment
from llenvs.traces import SegmentRecord, Trace, read_traces
from tests.analysis.coin_backend import CoinBackend, jumpy_values

K = 32
"""Rollouts per boundary of the fixed references."""

JUMP = 0.1
"""A true ``|Δ|`` at least this large is a jump."""


def value_curve(rng: random.Random) -> list[float]:
    """A true value curve: 8-20 boundaries, flat but for drift and 1-3 jumps (``jumpy_values``)."""
    return jumpy_values(rng, rng.randint(8, 20))


def simulated_trace(base: Trace, segments: int) -> Trace:
    """``base`` with ``segments`` short, open (non-terminal) segments: every boundary sampled."""
    texts = [f"{n}. Step {n}.\n" for n in range(segments)]
    records, start = [], 0
    for index, text in enumerate(texts):
        records.append(SegmentRecord(index, start, start + len(text), text))
        start += len(text)
    return dataclasses.replace(base, response="".join(texts), segments=tuple(records))


def top_steps(values: list[float]) -> list[int]:
    """The steps by true ``|v_{i+1} - v_i|``, largest first."""
    sizes = [abs(b - a) for a, b in itertools.pairwise(values)]
    return sorted(range(len(sizes)), key=lambda s: (-sizes[s], s))


PASSES: dict[str, tuple[Callable[[], Schedule], float, int]] = {
    f"fixed k={K} (reference A)": (lambda: FixedSchedule(per_round=K), 1.0, 0),
    f"fixed k={K} (reference B)": (lambda: FixedSchedule(per_round=K), 1.0, 2),
    "fixed, 25%": (lambda: FixedSchedule(per_round=K // 4), 0.25, 1),
    "adaptive, widths (top_k=0), 25%": (lambda: AdaptiveSchedule(top_k=0), 0.25, 1),
    "adaptive, top-1 (top_k=1), 25%": (lambda: AdaptiveSchedule(top_k=1), 0.25, 1),
    "adaptive, top-3, each value alone, 25%": (
        lambda: AdaptiveSchedule(change_prior=None),
        0.25,
        1,
    ),
    "adaptive, top-3, warm-up 2, 25%": (lambda: AdaptiveSchedule(initial=2), 0.25, 1),
    "adaptive, top-3 (default), 25%": (AdaptiveSchedule, 0.25, 1),
}
"""Label: (schedule, share of the reference budget, run seed)."""

COLUMNS = (
    "true top-3",
    "true top-3 (3-jump traces)",
    "true top step",
    "every jump in top-3",
    "same top-3 as reference A",
    "top-3 agrees with A where A is sure",
    "same top step as A",
    "true top step, raw |Δ| ranking",
    "rollouts",
)
"""What the table counts per pass (the last, rollouts, is shown per trace)."""


def run(traces: int, width: float) -> str:
    """Simulate ``traces`` traces through every pass; the markdown table."""
    base = next(iter(read_traces(ROOT / "tests" / "data" / "leg_counting_first_two.jsonl")))
    right = str(base.task.expected_answer)
    environment = trace_environment(
        base, CoinBackend(base, [0.5] * (len(base.segments) + 1), right)
    )
    counts = {label: dict.fromkeys(COLUMNS, 0) for label in PASSES}
    three = sure = 0
    started = time.perf_counter()
    for number in range(traces):
        values = value_curve(random.Random(number))
        trace = simulated_trace(base, len(values) - 1)
        coin = CoinBackend(trace, values, right)
        truth = top_steps(values)
        jumps = {s for s in truth if abs(values[s + 1] - values[s]) >= JUMP}
        three += len(jumps) == 3
        reference: TopSteps | None = None
        reference_ranking: list[int] = []
        for label, (schedule, share, seed) in PASSES.items():
            params = AnalysisParams(budget=int(share * K * len(values)), width=width, seed=seed)
            analysis = analyze_trace(
                trace, coin, params, schedule=schedule(), environment=environment
            )
            ranking = analysis.ranking()
            found = set(ranking[:3])
            if reference is None:
                reference, reference_ranking = analysis.top_steps(3), ranking
                sure += len(reference.sure)
            raw = sorted(
                (s for s in analysis.importances if s.importance is not None),
                key=lambda s: (-abs(s.importance or 0.0), s.step),
            )
            tally = counts[label]
            tally["true top-3"] += found == set(truth[:3])
            tally["true top-3 (3-jump traces)"] += found == set(truth[:3]) and len(jumps) == 3
            tally["true top step"] += ranking[0] == truth[0]
            tally["every jump in top-3"] += jumps <= found
            tally["same top-3 as reference A"] += found == set(reference_ranking[:3])
            tally["top-3 agrees with A where A is sure"] += reference.agrees(found)
            tally["same top step as A"] += ranking[0] == reference_ranking[0]
            tally["true top step, raw |Δ| ranking"] += bool(raw) and raw[0].step == truth[0]
            tally["rollouts"] += len(analysis.rollouts)
        print(f"trace {number + 1}/{traces}", file=sys.stderr, end="\r")
    print(file=sys.stderr)
    seconds = time.perf_counter() - started
    lines = [
        f"{traces} simulated traces ({three} with 3 jumps), coin backend, reference k = {K}, "
        f"target width {width}; {seconds:.0f} s. Reference A is sure of "
        f"{sure / traces:.1f} of its top-3 steps per trace on average "
        "(`StepAnalysis.top_steps`: chance of being in the top 3 >= 0.95).",
        "",
        "| pass | rollouts per trace | " + " | ".join(COLUMNS[:-1]) + " |",
        "| --- | --- |" + " --- |" * (len(COLUMNS) - 1),
    ]
    for label, tally in counts.items():
        shares = " | ".join(
            f"{tally[column] / max(1, three if '3-jump' in column else traces):.1%}"
            for column in COLUMNS[:-1]
        )
        lines.append(f"| {label} | {tally['rollouts'] / traces:.0f} | {shares} |")
    return "\n".join(lines) + "\n"


HEADING = "## Step analysis on simulated traces (`bench/analysis_simulated.py`)"

SETUP = (
    "No model: the coin backend (`tests/analysis/coin_backend.py`) continues a simulated trace "
    "from before segment i with the right answer with probability v_i, a known curve of 8–20 "
    "boundaries, flat but for drift (Gaussian, sd 0.02) and 1–3 jumps of 0.1–0.6; "
    "`analyze_trace` runs as it does on a model. Two independent fixed references at "
    f"k = {K} per boundary (seeds 0 and 2), then passes at 25% of that budget (seed 1). Every "
    "pass ranks steps by `StepAnalysis.ranking()`: the posterior mean |Δv| under the "
    "changepoint model (`llenvs/analysis/statistics/_changepoints.py`); the last column ranks "
    "the same "
    "rollouts by the raw differences of the estimates instead."
)


def main() -> None:
    """Parse the options, run, print the section and write it to ``docs/benchmarks.md``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=200, help="how many simulated traces")
    parser.add_argument("--width", type=float, default=0.2, help="adaptive target width")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    started = time.perf_counter()
    table = run(args.traces, args.width)
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    command = f"bench/analysis_simulated.py --traces {args.traces} --width {args.width}"
    section = (
        f"{HEADING}\n\nCommand: `.venv/bin/python {command}` — run {now} on "
        f"{platform.machine()}, Python {platform.python_version()}, "
        f"{time.perf_counter() - started:.0f} s. {SETUP}\n\n{table}"
    )
    publish(HEADING, section, write=not args.no_write)


if __name__ == "__main__":
    main()
