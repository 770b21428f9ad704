"""The value-curve model's priors fit on one half of the traces, scored on the other (issue 51).

Run from the repository root (no model; the same simulation as ``bench/thought_anchors.py``)::

    .venv/bin/python bench/fitted_priors.py                 # writes its section
    .venv/bin/python bench/fitted_priors.py --seeds 2 --no-write

``StepAnalysis.moved``, the chance a step moved the value by δ, comes from a model of the value
curve with two priors: a step's chance of changing the value for good (``CHANGE_PRIOR``) and of
an excursion for one boundary (``EXCURSION_PRIOR``). The library's constants were chosen on the
same 20 published curves ``bench/thought_anchors.py`` reports on, so its figures are in-sample
for them. Here the traces are split into two halves with no problem in both (a problem's correct
and incorrect traces go together); for each half the pair of priors with the lowest Brier score of
its chances (a proper score: it rewards calibrated chances, not many calls) is chosen on that half
from a grid, and every figure is read on the *other* half. The default schedule's rollouts do not
depend on the priors (``AdaptiveSchedule`` schedules by bootstrap intervals), so each run is
simulated once and read under every pair.

Beside the cross-fit pair, in the same table: the library's constants (in-sample) and Thought
Anchors' own reading at its full cost, 100 continuations per chunk (``REFERENCE``) read by the
plug-in rule, a step called where the two boundaries' sample means differ by δ or more (its
stated chance 1 or 0, so nothing is stated in [0.05, 0.95]).
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import math
import os
import platform
import time
from collections.abc import Sequence
from pathlib import Path

from bench_common import EXTERNAL, publish
from curve_scores import MOVE, interval_cells
from published_curves import REFERENCE, Curve, curves, full_sampling, simulate

from llenvs.analysis.statistics import (
    CHANGE_PRIOR,
    EXCURSION_PRIOR,
    MARGIN,
    MOVED_CHANCE,
    StepCall,
    Tally,
    change_chances,
    default_schedule,
)

HEADING = "## Priors fit on one half, scored on the other (`bench/fitted_priors.py`)"
BUDGETS = (0.10, 0.25)
"""Token budgets, shares of Thought Anchors' (as ``bench/thought_anchors.py``)."""
CHANGE_GRID = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2)
"""The change priors tried (the library's 0.2 among them)."""
EXCURSION_GRID = (0.0, 0.003, 0.01, 0.03)
"""The excursion priors tried (the library's 0.03 among them)."""
WIDTH = 0.2
"""The adaptive schedule's target width (``bench/thought_anchors.py``'s default)."""

Run = tuple[Curve, dict[int, Tally]]
"""One simulated run: the trace and the tallies its schedule reached."""


def halves(found: Sequence[Curve]) -> tuple[list[Curve], list[Curve]]:
    """Two halves with no problem in both: problems sorted by name, dealt alternately.

    Example:
        >>> a = Curve("correct/problem_1", (0.5,), True, (1.0,), "m/correct/problem_1")
        >>> b = Curve("incorrect/problem_1", (0.5,), False, (1.0,), "m/incorrect/problem_1")
        >>> c = Curve("correct/problem_2", (0.5,), True, (1.0,), "m/correct/problem_2")
        >>> [[x.name for x in half] for half in halves([a, b, c])]
        [['correct/problem_1', 'incorrect/problem_1'], ['correct/problem_2']]

    """
    problems = sorted({_problem(curve) for curve in found})
    first = set(problems[::2])
    return (
        [curve for curve in found if _problem(curve) in first],
        [curve for curve in found if _problem(curve) not in first],
    )


def _problem(curve: Curve) -> str:
    return curve.name.rsplit("/", 1)[-1]


def calls_of(runs: Sequence[Run], prior: float, excursion: float) -> list[StepCall]:
    """Every step's call under the value-curve model with these priors."""
    calls: list[StepCall] = []
    for curve, tallies in runs:
        truth = curve.truth
        chances = change_chances(tallies, prior=prior, excursion=excursion, delta=MOVE)
        for step, chance in sorted(chances.items()):
            delta = truth[step + 1] - truth[step]
            calls.append(StepCall(curve.name, step, delta, chance, chance > MOVED_CHANCE))
    return calls


def plug_in_calls(runs: Sequence[Run]) -> list[StepCall]:
    """Every step called where its two boundaries' sample means differ by ``MOVE`` or more."""
    calls: list[StepCall] = []
    for curve, tallies in runs:
        truth = curve.truth
        means = [tallies[b].successes / max(1, tallies[b].trials) for b in range(len(truth))]
        for step in range(len(truth) - 1):
            called = abs(means[step + 1] - means[step]) >= MOVE - 1e-9
            delta = truth[step + 1] - truth[step]
            calls.append(StepCall(curve.name, step, delta, float(called), called))
    return calls


def recalibrated(fit_on: Sequence[StepCall], calls: Sequence[StepCall]) -> list[StepCall]:
    """``calls`` with their chances mapped by a Platt fit on ``fit_on`` (logistic on the logit).

    The map is fit on one half's calls and applied to the other's; a call stays the chance
    above ``MOVED_CHANCE``, of the mapped chance.

    Example:
        >>> fit_on = [StepCall("a", n, 0.3 * (n % 2), 0.5, False) for n in range(40)]
        >>> [round(c.chance, 2) for c in recalibrated(fit_on, fit_on[:2])]
        [0.5, 0.5]

    """
    from scipy.optimize import minimize

    def logit(p: float) -> float:
        p = min(max(p, 1e-6), 1 - 1e-6)
        return math.log(p / (1 - p))

    x = [logit(c.chance) for c in fit_on]
    y = [float(abs(c.delta) >= MOVE - 1e-9) for c in fit_on]

    def loss(ab: Sequence[float]) -> float:
        total = 0.0
        for xi, yi in zip(x, y, strict=True):
            z = ab[0] * xi + ab[1]
            total += math.log1p(math.exp(-abs(z))) + max(z, 0) - yi * z
        return total / len(x)

    a, b = minimize(loss, [1.0, 0.0], method="Nelder-Mead").x
    mapped: list[StepCall] = []
    for c in calls:
        chance = 1 / (1 + math.exp(-(a * logit(c.chance) + b)))
        mapped.append(StepCall(c.trace, c.step, c.delta, chance, chance > MOVED_CHANCE))
    return mapped


def brier(calls: Sequence[StepCall]) -> float:
    """The mean squared error of the chances against ``|Δ| >= MOVE``."""
    moved = [float(abs(c.delta) >= MOVE - 1e-9) for c in calls]
    return sum((c.chance - m) ** 2 for c, m in zip(calls, moved, strict=True)) / len(calls)


def fit(runs: Sequence[Run]) -> tuple[float, float]:
    """The pair of priors on the grid with the lowest Brier score on ``runs``."""
    return min(
        itertools.product(CHANGE_GRID, EXCURSION_GRID),
        key=lambda pair: brier(calls_of(runs, *pair)),
    )


def simulated(found: Sequence[Curve], share: float, seeds: int) -> list[Run]:
    """Every trace's runs of the default schedule at ``share`` of Thought Anchors' tokens."""
    runs: list[Run] = []
    for curve, seed in itertools.product(found, range(seeds)):
        budget = share * REFERENCE * sum(curve.tokens)
        tallies, _ = simulate(curve, default_schedule(), budget, WIDTH, seed)
        runs.append((curve, tallies))
    return runs


def row(label: str, calls: Sequence[StepCall], resamples: int, reading: str) -> str:
    """One table row: the call scores with their intervals by resampling traces."""
    return f"| {label} | {reading} | " + " | ".join(interval_cells(calls, MARGIN, resamples)) + " |"


def main() -> None:
    """Fit, read, print the section (and write it unless ``--no-write``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", type=Path, default=EXTERNAL / "thought_anchors")
    parser.add_argument("--seeds", type=int, default=5, help="runs per trace and budget")
    parser.add_argument("--resamples", type=int, default=1000, help="trace resamples per interval")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    started = time.perf_counter()
    found = curves(args.dir)
    first, second = halves(found)
    rows: list[str] = []
    fitted: dict[float, tuple[tuple[float, float], tuple[float, float]]] = {}
    for share in BUDGETS:
        runs_first = simulated(first, share, args.seeds)
        runs_second = simulated(second, share, args.seeds)
        pair_first, pair_second = fit(runs_first), fit(runs_second)
        fitted[share] = (pair_first, pair_second)
        read_second = calls_of(runs_second, *pair_first)
        read_first = calls_of(runs_first, *pair_second)
        crossed = read_second + read_first
        mapped = recalibrated(calls_of(runs_first, *pair_first), read_second) + recalibrated(
            calls_of(runs_second, *pair_second), read_first
        )
        constants = calls_of(runs_first + runs_second, CHANGE_PRIOR, EXCURSION_PRIOR)
        rows.append(row(f"{share:.0%}", constants, args.resamples, "library constants (in-sample)"))
        rows.append(row(f"{share:.0%}", crossed, args.resamples, "cross-fit priors"))
        rows.append(row(f"{share:.0%}", mapped, args.resamples, "cross-fit priors, recalibrated"))
    full = [(curve, full_sampling(curve)) for curve in found]
    library = calls_of(full, CHANGE_PRIOR, EXCURSION_PRIOR)
    rows.append(row("100%", library, args.resamples, "library constants, TA's sampling"))
    rows.append(row("100%", plug_in_calls(full), args.resamples, "Thought Anchors' plug-in"))
    elapsed = time.perf_counter() - started
    shown = "; ".join(
        f"at {share:.0%}: ({a[0]}, {a[1]}) on the first half, ({b[0]}, {b[1]}) on the second"
        for share, (a, b) in fitted.items()
    )
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        HEADING,
        "",
        f"Command: `.venv/bin/python bench/fitted_priors.py --seeds {args.seeds}` — run {now} on "
        f"{platform.machine()}, Python {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"{elapsed:.0f} s. The default schedule (`default_schedule()`) on the 20 published "
        f"curves as `bench/thought_anchors.py` simulates them, {args.seeds} seeds per trace and "
        f"budget; halves with no problem in both ({len(first)} and {len(second)} traces). The "
        "pair of priors (change, excursion) with the lowest Brier score on one half, from "
        f"change {CHANGE_GRID} × excursion {EXCURSION_GRID}, reads the other half; the rows "
        "pool both halves read so. Fitted (change, excursion): "
        f"{shown}. The library's constants are ({CHANGE_PRIOR}, {EXCURSION_PRIOR}). Scores as "
        f"in the section above (m = {MARGIN}; ECE over the steps stated in [0.05, 0.95], their "
        "count in brackets; Brier skill against the base rate; confident misses: positives "
        f"stated below 0.05), 95% intervals from {args.resamples} resamples of whole traces. "
        "Thought Anchors' plug-in: its full cost (100 continuations per chunk, one seed), a step "
        "called where the sample means differ by δ = 0.2 or more, stated 1 or 0.",
        "",
        "| budget | reading | recall | precision | ECE, stated in [0.05, 0.95] (steps) | "
        "Brier skill vs the base rate | confident misses (stated < 0.05) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        *rows,
    ]
    publish(HEADING, "\n".join(lines) + "\n", write=not args.no_write)


if __name__ == "__main__":
    main()
