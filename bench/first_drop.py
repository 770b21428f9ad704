"""Where did a failed trace go wrong? The first-drop search on Thought Anchors' failed traces.

Run from the repository root (no model; the simulation is at the schedule level, as
``bench/thought_anchors.py``'s, whose curves and token prices it reads)::

    .venv/bin/python bench/first_drop.py --seeds 20        # writes its section
    .venv/bin/python bench/first_drop.py --seeds 3 --no-write

For every failed trace under ``--dir`` the published curve is the truth. Its *first drop* is the
first step across which the published value falls by at least δ (0.2) and after which it never
comes back above the value before it less δ/2: the step where the trace was lost. The search
(``FirstDropSchedule``) runs as ``analyze_trace`` would run it, each rollout a Bernoulli draw of
the published value (``simulate``, tested against ``analyze_trace``); ``first_drop`` reads its
answer. Both methods get 10% of Thought Anchors' tokens; the peer is a sweep, the library's
``default`` schedule, its tallies read by the same ``first_drop``. Tokens are counted as in
``bench/thought_anchors.py`` (a rollout from before chunk i costs the response's characters
after it / 4), against Thought Anchors' 100 per chunk.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench_common import EXTERNAL, publish
from thought_anchors import REFERENCE, Curve, curves, simulate

from llenvs.analysis.statistics import (
    MOVE_DELTA,
    FirstDrop,
    FirstDropSchedule,
    Schedule,
    Tally,
    default_schedule,
    first_drop,
)

HEADING = "## Finding where a failed trace went wrong (first drop, real curves)"

SHARE = 0.10
"""Both methods' token budget: this share of Thought Anchors' tokens."""


def true_first_drop(truth: Sequence[float], delta: float = MOVE_DELTA) -> int | None:
    """The first step the value falls by ``delta`` across and never climbs back over.

    Example:
        >>> true_first_drop([0.8, 0.8, 0.3, 0.35, 0.0]), true_first_drop([0.5, 0.4, 0.3, 0.2])
        (1, None)

    """
    for step in range(len(truth) - 1):
        before = truth[step]
        if before - truth[step + 1] >= delta and max(truth[step + 1 :]) < before - delta / 2:
            return step
    return None


def search(curve: Curve, schedule: Schedule, budget: float, seed: int) -> dict[int, Tally]:
    """The tallies ``analyze_trace`` reaches on ``curve`` with ``schedule`` and a token budget."""
    return simulate(curve, schedule, budget, 0.2, seed)[0]


@dataclass
class Row:
    """One method over every failed trace and seed."""

    runs: int = 0
    with_drop: int = 0
    hits: int = 0
    exact: int = 0
    covered: int = 0
    said_none: int = 0
    without_drop: int = 0
    none_right: int = 0
    shares: list[float] | None = None


def measure(found: Sequence[Curve], seeds: int, method: str) -> Row:
    """``method`` (``search`` or ``sweep``) on every failed trace, ``seeds`` times each."""
    row = Row(shares=[])
    assert row.shares is not None
    for curve in found:
        truth = true_first_drop(curve.truth)
        reference = REFERENCE * sum(curve.tokens)
        schedule = FirstDropSchedule if method == "search" else default_schedule
        for seed in range(seeds):
            tallies = search(curve, schedule(), SHARE * reference, seed)
            answer: FirstDrop = first_drop(tallies)
            tokens = sum(tallies[b].trials * curve.tokens[b] for b in range(len(curve.values)))
            row.shares.append(tokens / reference)
            row.runs += 1
            if truth is None:
                row.without_drop += 1
                row.none_right += answer.step is None
                continue
            row.with_drop += 1
            row.said_none += answer.step is None
            if answer.step is not None:
                row.hits += abs(answer.step - truth) <= 1
                row.exact += answer.step == truth
            if answer.low is not None and answer.high is not None:
                row.covered += answer.low <= truth <= answer.high
    return row


def table(rows: dict[str, Row]) -> list[str]:
    """The rows as a markdown table."""
    lines = [
        "| method | runs | tokens, share of TA's (mean / max) | first drop found within ±1 | "
        "exactly | its steps cover the truth | no drop said, where there is one | "
        "no drop said, where there is none |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label, row in rows.items():
        shares = row.shares or [0.0]
        lines.append(
            f"| {label} | {row.runs} | {statistics.mean(shares):.3f} / {max(shares):.3f} | "
            f"{row.hits / max(1, row.with_drop):.2f} | {row.exact / max(1, row.with_drop):.2f} | "
            f"{row.covered / max(1, row.with_drop):.2f} | "
            f"{row.said_none / max(1, row.with_drop):.2f} | "
            f"{row.none_right}/{row.without_drop} |"
        )
    return lines


def per_trace(found: Sequence[Curve]) -> list[str]:
    """Each failed trace's truth, with the search's answer for seed 0."""
    lines = ["| trace | chunks | true first drop | search (seed 0) |", "|---|---|---|---|"]
    for curve in found:
        truth = true_first_drop(curve.truth)
        answer = first_drop(
            search(curve, FirstDropSchedule(), SHARE * REFERENCE * sum(curve.tokens), 0)
        )
        where = "none" if truth is None else f"step {truth}: {curve.truth[truth]:.2f} → "
        where += "" if truth is None else f"{curve.truth[truth + 1]:.2f}"
        lines.append(f"| {curve.name} | {len(curve.values)} | {where} | {answer.reason} |")
    return lines


def main() -> None:
    """Parse the options, run, print the section and write it to ``docs/benchmarks.md``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=EXTERNAL / "thought_anchors")
    parser.add_argument("--seeds", type=int, default=20, help="runs per trace")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    started = time.perf_counter()
    failed = [c for c in curves(args.dir) if not c.success]
    rows = {
        "first-drop search (`FirstDropSchedule()`)": measure(failed, args.seeds, "search"),
        "sweep: the `default` schedule": measure(failed, args.seeds, "sweep"),
    }
    seconds = time.perf_counter() - started
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    with_drop = sum(true_first_drop(c.truth) is not None for c in failed)
    lines = [
        HEADING,
        "",
        f"Command: `.venv/bin/python bench/first_drop.py --seeds {args.seeds}` — run {now} on "
        f"{platform.machine()}, Python {platform.python_version()}, {seconds:.0f} s. "
        + " ".join(__doc__.split("\n\n")[3].replace("``", "`").split()),
        "",
        f"{len(failed)} failed traces, {with_drop} of them with a first drop of {MOVE_DELTA} "
        "(the others decline by smaller steps, or never stood high):",
        "",
        *table(rows),
        "",
        *per_trace(failed),
    ]
    publish(HEADING, "\n".join(lines) + "\n", write=not args.no_write)


if __name__ == "__main__":
    main()
