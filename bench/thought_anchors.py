"""Step analysis on real value curves: Thought Anchors' published accuracies as the truth.

Run from the repository root (no model; the simulation is at the schedule level)::

    .venv/bin/python bench/thought_anchors.py                  # all 20 traces; writes its section
    .venv/bin/python bench/thought_anchors.py --traces 3 --no-write   # prints it only

For every trace under ``--dir`` (``read_thought_anchors``) the published curve is the truth: a
continuation from before chunk i succeeds with probability ``v_i``, the published ``accuracy``
(``published.tallies[i]``), and the value after the last chunk is the trace's own verdict
(``trace.success``), exact. The analysis runs ``analyze_trace``'s round loop without the episode
machinery (``simulate``): the tallies of the sampled boundaries plus the exact end and each
boundary's price, ``schedule.next_round(counted, left, width, prices=...)``, the round admitted
as far as it fits in the token budget (``affordable``), one Bernoulli draw per rollout, until
nothing more is asked or fits. The k-th rollout at a boundary draws the
same uniform under every schedule (one stream per boundary and seed), so the passes differ only
in where the rollouts go. The readings are the library's own: ``boundary_values`` (Wilson
intervals), ``exact_value`` for the end, ``step_importances`` (bootstrap intervals),
``StepAnalysis.moved`` and ``StepAnalysis.top_steps``.

The section it prints replaces its own in ``docs/benchmarks.md`` (``bench_common``), with the
command, the date and the machine: nothing in it is transcribed by hand.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import itertools
import json
import math
import platform
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from pathlib import Path

from bench_common import EXTERNAL, publish
from calibration import reliability_table
from curve_scores import (
    LASTS,
    MEASURES,
    MOVE,
    NEAR,
    TOP_K,
    Score,
    call_lines,
    interval_cells,
    is_move,
    lasts,
    score,
)
from fitted_priors import calls_of, plug_in_calls
from published_curves import REFERENCE, Curve, analysis_of, curves, full_sampling, simulate

from llenvs.analysis import AdaptiveSchedule, FixedSchedule, Schedule
from llenvs.analysis.statistics import (
    CALIBRATION_BINS,
    CHANGE_PRIOR,
    EXCURSION_PRIOR,
    MARGIN,
    MOVE_TOLERANCE,
    MOVED_CHANCE,
    MovesSchedule,
    StepCall,
    default_schedule,
    score_calls,
)
from llenvs.traces.files import write_lines_atomically

BUDGETS = (0.10, 0.25, 0.50)
"""Budgets in tokens, as shares of Thought Anchors' (``REFERENCE`` continuations per chunk, each
as long as the response after it)."""

SCHEDULES: dict[str, Callable[[], Schedule]] = {
    "default": default_schedule,
    "fixed": FixedSchedule,
    "widths": lambda: AdaptiveSchedule(top_k=0),
    "moves": MovesSchedule,
    "moves, no excursions": lambda: MovesSchedule(excursion=0.0),
}
"""Label: the schedule (``default`` is ``analyze_trace``'s, ``default_schedule()``:
``AdaptiveSchedule()``, which settles the top 3 first; ``widths`` is
``AdaptiveSchedule(top_k=0)``). A schedule with its own
``excursion`` prior is read with it too (``StepAnalysis.excursion``): ``moves, no excursions`` is
the model before excursions, measured in the same run."""


Results = dict[tuple[float, str], dict[str, Score]]
"""(budget share, schedule label): trace name: its score, summed over seeds."""


def run(
    found: Sequence[Curve],
    seeds: int,
    width: float,
    budgets: Sequence[float] = BUDGETS,
    calls: list[dict[str, object]] | None = None,
    jobs: int = 1,
) -> Results:
    """Every trace through every budget and schedule, ``seeds`` times each.

    ``calls``, when given, receives the lines of the calls file (``call_lines``); ``jobs``
    processes share the traces (each trace's runs are the same however they are shared).
    """
    results: Results = {(b, label): {} for b in budgets for label in SCHEDULES}
    work = [(curve, seeds, width, tuple(budgets), calls is not None) for curve in found]
    with concurrent.futures.ProcessPoolExecutor(jobs) if jobs > 1 else nullcontext() as pool:
        mapped = (pool.map if pool is not None else map)(_run_curve, *zip(*work, strict=True))
        for number, (curve, (scores, lines)) in enumerate(zip(found, mapped, strict=True)):
            for key, total in scores.items():
                results[key][curve.name] = total
            if calls is not None:
                calls.extend(lines)
            print(f"trace {number + 1}/{len(found)} ({curve.name})", file=sys.stderr)
    return results


def _run_curve(
    curve: Curve, seeds: int, width: float, budgets: Sequence[float], want_calls: bool
) -> tuple[dict[tuple[float, str], Score], list[dict[str, object]]]:
    """One trace through every budget and schedule: its scores and its calls file lines."""
    scores: dict[tuple[float, str], Score] = {}
    lines: list[dict[str, object]] = []
    for share, (label, schedule) in itertools.product(budgets, SCHEDULES.items()):
        total = Score()
        budget = share * REFERENCE * sum(curve.tokens)  # in tokens: a share of TA's
        for seed in range(seeds):
            started = time.perf_counter()
            made = schedule()
            counted, _ = simulate(curve, made, budget, width, seed)
            simulated = time.perf_counter()
            excursion = getattr(made, "excursion", EXCURSION_PRIOR)
            analysis = analysis_of(curve, counted, seed, excursion)
            result = score(curve, analysis, counted)
            result.scheduling = simulated - started
            result.reading = time.perf_counter() - simulated
            if want_calls:
                lines.extend(call_lines(curve, result, label, share, seed))
            total.add(result)
        scores[share, label] = total
    return scores, lines


def honest_table(
    results: Results,
    margin: float,
    resamples: int,
    full: Mapping[str, Sequence[StepCall]] | None = None,
) -> list[str]:
    """The issue-51 measures, one row per budget and schedule.

    Each with its 95% interval by resampling traces (``trace_interval``). ``full``: readings of
    Thought Anchors' own sampling at its full cost, by label, as rows at 100% after the others.
    """
    lines = [
        f"| budget | schedule | tokens spent, share of TA's | recall (m = {margin}) | "
        f"precision (m = {margin}) | ECE, stated in [0.05, 0.95] (steps) | Brier skill vs the "
        "base rate | confident misses (stated < 0.05) |",
        "| --- | --- |" + " --- |" * 6,
    ]
    for (share, label), per_trace in results.items():
        pooled = _pooled(per_trace)
        cells = interval_cells(pooled.calls, margin, resamples)
        lines.append(
            f"| {share:.0%} | {label} | {_share(pooled.tokens, pooled.reference_tokens)} | "
            + " | ".join(cells)
            + " |"
        )
    for label, calls in (full or {}).items():
        lines.append(
            f"| 100% | {label} | 1.000 | "
            + " | ".join(interval_cells(calls, margin, resamples))
            + " |"
        )
    return lines


def best_lines(results: Results, margin: float) -> list[str]:
    """Per budget, the best any schedule reaches on each measure, and which schedule."""
    lines = []
    for share in sorted({share for share, _ in results}):
        scored = {
            label: score_calls(_pooled(per_trace).calls, margin)
            for (at, label), per_trace in results.items()
            if at == share
        }
        best = []
        for name, measure in MEASURES.items():
            low = name in ("ECE", "confident misses")
            known = {label: measure(s) for label, s in scored.items() if not math.isnan(measure(s))}
            if known:
                label = (min if low else max)(known, key=lambda k: known[k])
                best.append(f"{name} {known[label]:.2f} (`{label}`)")
        lines.append(f"- at {share:.0%}: " + ", ".join(best))
    return lines


def _share(part: float, whole: float) -> str:
    return f"{part / whole:.3f}" if whole else "–"


def _pooled(per_trace: Mapping[str, Score]) -> Score:
    total = Score()
    for one in per_trace.values():
        total.add(one)
    return total


def cost_table(results: Results, seeds: int) -> list[str]:
    """Coverage, error and cost: one row per budget and schedule, every trace pooled."""
    lines = [
        "| budget | schedule | rollouts per chunk | tokens, share of TA's | value coverage | "
        "importance coverage | importance interval width | MAE of v̂ | s scheduling | "
        "s reading |",
        "| --- | --- |" + " --- |" * 8,
    ]
    for (share, label), per_trace in results.items():
        s = _pooled(per_trace)
        lines.append(
            f"| {share:.0%} | {label} | {s.rollouts / max(1, s.chunks):.1f} | "
            f"{_share(s.tokens, s.reference_tokens)} | {_share(s.values_covered, s.values)} | "
            f"{_share(s.steps_covered, s.steps)} | {_share(s.steps_width, s.steps)} | "
            f"{_share(s.error, s.values)} | {s.scheduling / seeds:.1f} | "
            f"{s.reading / seeds:.1f} |"
        )
    return lines


def moves_table(results: Results) -> list[str]:
    """Finding the moves: one row per budget and schedule, every trace pooled."""
    lines = [
        "| budget | schedule | recall (moved) | recall, lasting moves | recall, transient moves | "
        f"precision (moved) | precision, a move within ±{NEAR} steps | "
        "recall (interval excludes 0) | precision (interval excludes 0) | "
        f"sure steps in the true top-{TOP_K} |",
        "| --- | --- |" + " --- |" * 8,
    ]
    for (share, label), per_trace in results.items():
        s = _pooled(per_trace)
        lines.append(
            f"| {share:.0%} | {label} | {_share(s.called_true, s.moves)} | "
            f"{_share(s.called_lasting, s.lasting)} | "
            f"{_share(s.called_true - s.called_lasting, s.moves - s.lasting)} | "
            f"{_share(s.called_true, s.called)} | {_share(s.called_near, s.called)} | "
            f"{_share(s.excluding_true, s.moves)} | {_share(s.excluding_true, s.excluding)} | "
            f"{s.sure_in_top}/{s.sure} |"
        )
    return lines


def _cells(
    scores: Sequence[Score], part: Callable[[Score], float], whole: Callable[[Score], float]
) -> str:
    return " / ".join(_share(part(s), whole(s)) for s in scores)


def trace_table(results: Results, found: Sequence[Curve], share: float) -> list[str]:
    """One row per trace at ``share`` of the budget: every schedule in each cell, in order."""
    labels = list(SCHEDULES)
    lines = [
        "| trace | chunks | true moves | value coverage | importance coverage | recall (moved) | "
        "precision (moved) | sure in true top-3 | MAE of v̂ |",
        "| --- | --- | --- |" + " --- |" * 6,
    ]
    for curve in found:
        scores = [results[share, label][curve.name] for label in labels]

        moves = sum(is_move(curve.truth, s) for s in range(len(curve.values)))
        lines.append(
            f"| {curve.name} | {len(curve.values)} | {moves} | "
            f"{_cells(scores, lambda s: s.values_covered, lambda s: s.values)} | "
            f"{_cells(scores, lambda s: s.steps_covered, lambda s: s.steps)} | "
            f"{_cells(scores, lambda s: s.called_true, lambda s: s.moves)} | "
            f"{_cells(scores, lambda s: s.called_true, lambda s: s.called)} | "
            f"{' / '.join(f'{s.sure_in_top}/{s.sure}' for s in scores)} | "
            f"{_cells(scores, lambda s: s.error, lambda s: s.values)} |"
        )
    return lines


HEADING = "## Step analysis on real value curves (`bench/thought_anchors.py`)"

SETUP = (
    "No model: for each of Thought Anchors' published traces (`--dir`; DeepSeek-R1-Distill-"
    "Llama-8B, MATH), a continuation from before chunk i succeeds with probability v_i, the "
    "published `accuracy` (the truth here), and the value after the last chunk is the trace's "
    "own verdict, exact. `analyze_trace`'s round loop runs at the schedule level (`simulate`: "
    "`next_round` on the tallies, the exact end and each boundary's price, the round admitted "
    "as far as it fits in the token budget at the rollouts' limit, one Bernoulli draw per "
    "rollout, until nothing more is asked or fits; "
    "`tests/analysis/test_thought_anchors_bench.py` checks it against "
    "`analyze_trace`), and the library reads the tallies: Wilson intervals (`boundary_values`), "
    "bootstrap intervals of v_{i+1} − v_i (`step_importances`), `StepAnalysis.moved` and "
    "`top_steps`. Budgets are in tokens, shares of Thought Anchors' (100 continuations per "
    "chunk, each as long as the response after it): a rollout is priced and charged the "
    "characters of the response after its boundary / 4, admitted only while the longest such "
    "(its limit) fits, so no run spends past its share; "
    "schedules: `default` (`default_schedule()`, what `analyze_trace` runs when given none, "
    "which is `AdaptiveSchedule()`: settles the top 3 first), `fixed` (`FixedSchedule()`), "
    "`widths` (`AdaptiveSchedule(top_k=0)`) and `moves` "
    f"(`MovesSchedule()`: seeks every step whose chance of having moved by δ = {MOVE} is in "
    "doubt). The value "
    "curve's model (`llenvs.analysis.statistics`) lets a step move the value for good (prior "
    f"{CHANGE_PRIOR}) or for one boundary, an excursion (prior {EXCURSION_PRIOR}); the pass "
    "*moves, no excursions* is `MovesSchedule` read and scheduled with the model before "
    "excursions (prior 0), in the same run. Coverage is pooled "
    "over every boundary (the exact end left out) and every step (the last one, into the exact "
    f"end, in) of every trace. A *move* is a step whose true |Δv| ≥ {MOVE}; it *lasts* when the "
    f"mean of the {LASTS} true values after it differs from that of the {LASTS} up to it by at "
    "least half the move, and is *transient* otherwise (a wiggle that reverts). The method "
    f"*calls* a move where `StepAnalysis.moved`, the posterior chance that |Δv| ≥ δ = {MOVE} "
    "(from the joint posterior of the step's two boundary values), is above "
    f"{MOVED_CHANCE} (`MOVED_CHANCE`, what `top_steps` calls detected); the columns "
    "*interval excludes 0* call it where the step's "
    f"bootstrap interval excludes 0 instead. *Precision, a move within ±{NEAR} steps* counts a "
    f"called step right when the true value changes by ≥ {MOVE} between {NEAR} steps before it "
    f"and {NEAR} after. *Sure steps in the true top-{TOP_K}*: of the steps "
    f"`top_steps({TOP_K}).sure` names, how many are among the {TOP_K} largest true |Δv| (ties "
    "all in). Tokens: each rollout from before chunk i counted as the characters of the "
    "response after it / 4 (a continuation about as long as the published one), against 100 "
    "such per chunk. s scheduling / s reading: seconds per seed in the round loop (mostly "
    "`next_round`) and in reading the tallies (the bootstrap, and the 2,000 posterior "
    "draws behind ranking and membership). *Reliability*: every step's stated chance of a "
    "move, binned, against how often the published curve moved by δ there (the simulation's "
    "truth). "
    "The published values have their own noise: each is the mean of about 100 continuations. "
    "The *real curve* columns account for it: each published value's real value is drawn from "
    "its Beta(s + ½, f + ½) posterior, each boundary on its own (no model of the curve, so the "
    "truth borrows nothing from the method), and a step's truth is its chance of a move of δ "
    "(4,000 draws); a published move with a small such chance may be noise of the published "
    "values rather than a move of the model's."
)


def main() -> None:
    """Parse the options, run, print the section and write it to ``docs/benchmarks.md``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=EXTERNAL / "thought_anchors")
    parser.add_argument("--traces", type=int, default=None, help="the first N traces only")
    parser.add_argument("--seeds", type=int, default=5, help="runs per trace and pass")
    parser.add_argument("--width", type=float, default=0.2, help="adaptive target width")
    parser.add_argument(
        "--budgets",
        type=float,
        nargs="+",
        default=BUDGETS,
        help="budget shares to run (a quick loop: one)",
    )
    parser.add_argument(
        "--calls", type=Path, default=None, help="write every run's calls to this JSONL file"
    )
    parser.add_argument(
        "--resamples", type=int, default=1000, help="trace resamples per 95%% interval"
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes sharing the traces")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    started = time.perf_counter()
    found = curves(args.dir, args.traces)
    calls: list[dict[str, object]] | None = [] if args.calls is not None else None
    results = run(found, args.seeds, args.width, args.budgets, calls, args.jobs)
    if args.calls is not None and calls is not None:
        encoded = (json.dumps(line).encode() + b"\n" for line in calls)
        written = write_lines_atomically(args.calls, encoded)
        print(f"wrote {written} lines to {args.calls}", file=sys.stderr)
    share = 0.25 if 0.25 in args.budgets else args.budgets[0]
    truths = [c.truth for c in found]
    moves = [(t, s) for t in truths for s in range(len(t) - 1) if is_move(t, s)]
    noisy_moves = sum(
        c.real_moved[s] for c in found for s in range(len(c.values)) if is_move(c.truth, s)
    )
    hidden = sum(
        c.real_moved[s] for c in found for s in range(len(c.values)) if not is_move(c.truth, s)
    )
    sampled = [(curve, full_sampling(curve)) for curve in found]
    full = {
        "TA's sampling, the library's reading": calls_of(sampled, CHANGE_PRIOR, EXCURSION_PRIOR),
        "TA's sampling, its plug-in reading": plug_in_calls(sampled),
    }
    honest = {m: honest_table(results, m, args.resamples, full) for m in (MARGIN, 0.03)}
    seconds = time.perf_counter() - started
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    options = "" if args.traces is None else f" --traces {args.traces}"
    if tuple(args.budgets) != BUDGETS:
        options += " --budgets " + " ".join(f"{b:g}" for b in args.budgets)
    if args.resamples != 1000:
        options += f" --resamples {args.resamples}"
    command = f"bench/thought_anchors.py{options} --seeds {args.seeds} --width {args.width}"
    lines = [
        HEADING,
        "",
        f"Command: `.venv/bin/python {command}` — run {now} on {platform.machine()}, Python "
        f"{platform.python_version()}, {seconds:.0f} s. {SETUP}",
        "",
        f"{len(found)} traces, {sum(len(c.values) for c in found)} chunks; {len(moves)} true "
        f"moves (|Δv| ≥ {MOVE} within {MOVE_TOLERANCE:g}), "
        f"{sum(lasts(t, s) for t, s in moves)} of them lasting. The published values' own "
        f"noise: of the {len(moves)} published moves, the real curve moved so at about "
        f"{noisy_moves:.1f} (the sum of their real-curve chances), and the steps the published "
        f"curve does not call moves hold about {hidden:.1f} real ones. Here the rollouts are "
        "drawn from the published values, so the published curve is the truth of the "
        "simulation and a schedule's recall tends to 1 as its budget grows; on a real model "
        "the published curve is one noisy estimate of the truth, not a bound on recall.",
        "",
        f"**Calls scored with a margin** (issue 51). A step is a positive when its true "
        f"|Δv| ≥ δ + m, a negative when |Δv| < δ − m (δ = {MOVE}); steps in between are too "
        "close to δ for either call to be wrong and are left out. *Recall*: positives called; "
        "*precision*: called positives over called positives and negatives; a step is called "
        f"where `StepAnalysis.moved` > {MOVED_CHANCE} (what the app and `llenvs analyze` "
        "show). *ECE*: the expected calibration error of the stated chances against |Δv| ≥ δ, "
        f"over the steps stated in [0.05, 0.95] only (bins {', '.join(map(str, CALIBRATION_BINS))};"
        " their count in brackets): nearly every step is stated near 0 and did not move, so an "
        "error over all steps is near 0 for any method, a constant forecast included. *Brier "
        "skill*: 1 − the chances' Brier score over every step / that of a constant forecast at "
        "the share of steps that moved (above 0: better than the constant). *Confident "
        "misses*: positives stated below 0.05. Tokens *spent*, over Thought Anchors'. "
        f"{args.seeds} seeds per trace; each figure pools every trace and seed, its 95% "
        f"interval from {args.resamples} resamples of whole traces (`trace_interval`). Nothing "
        "here is fit: the model's priors (`CHANGE_PRIOR`, `EXCURSION_PRIOR`) are the library's "
        "constants, which were chosen earlier on these same 20 curves, so the figures are "
        "in-sample for them; `bench/fitted_priors.py` fits them on one half of the problems and "
        "reads the other, and reads Thought Anchors' own sampling at its full cost (its "
        "section). The last two rows of each table read Thought Anchors' own sampling at its full "
        "cost (100 rollouts before every chunk, one draw): by the library (`StepAnalysis.moved`'s "
        "model, the constants) and by the plug-in rule (a step called where the two sample means "
        "differ by δ or more, stated 1 or 0). With m = 0.05:",
        "",
        *honest[MARGIN],
        "",
        "The best any schedule reaches, per budget and measure (m = 0.05; issue 51's goals for the "
        "default schedule at a spent share ≤ 0.10: recall ≥ 0.8, precision ≥ 0.8, and at every "
        "budget ECE ≤ 0.05, confident misses ≤ 0.05, Brier skill > 0):",
        "",
        *best_lines(results, MARGIN),
        "",
        "With m = 0.03:",
        "",
        *honest[0.03],
        "",
        "Coverage, error, cost:",
        "",
        *cost_table(results, args.seeds),
        "",
        "Finding the moves, without a margin (every step with |Δv| ≥ δ a move):",
        "",
        *moves_table(results),
        "",
        f"Reliability of the `default` schedule's stated chances at {share:.0%}, every bin:",
        "",
        *reliability_table(_pooled(results[share, "default"]).stated),
        "",
        f"The same for `moves` at {share:.0%}:",
        "",
        *reliability_table(_pooled(results[share, "moves"]).stated),
        "",
        f"Per trace at {share:.0%} (each cell: {' / '.join(SCHEDULES)}):",
        "",
        *trace_table(results, found, share),
    ]
    publish(HEADING, "\n".join(lines) + "\n", write=not args.no_write)


if __name__ == "__main__":
    main()
