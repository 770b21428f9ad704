"""Thought Anchors' published value curves as an oracle, and ``analyze_trace``'s loop on it.

``bench/thought_anchors.py`` and ``bench/first_drop.py`` score the library's step analysis on
these curves: ``curves`` reads the published traces (the value before each chunk, the trace's
verdict, each continuation's price in tokens), ``simulate`` runs a schedule's rounds on them at
a token budget (one Bernoulli draw of the published value per rollout, the same uniform for the
k-th rollout at a boundary under every schedule), and ``analysis_of`` reads the tallies with the
library's own functions. ``tests/analysis/test_thought_anchors_bench.py`` checks ``simulate``
against ``analyze_trace``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from calibration import real_moved

from llenvs.analysis import Schedule, StepAnalysis
from llenvs.analysis.sampling import CHARACTERS_PER_TOKEN, Rollout, affordable
from llenvs.analysis.sidecar import read_thought_anchors, thought_anchors_folders
from llenvs.analysis.statistics import (
    EXCURSION_PRIOR,
    BoundaryValue,
    Tally,
    boundary_values,
    exact_value,
    step_importances,
)

REFERENCE = 100
"""Thought Anchors' continuations per chunk: the cost the budgets are shares of."""


@dataclass(frozen=True)
class Curve:
    """One published trace as the simulation needs it."""

    name: str
    """``correct/problem_330`` and the like."""
    values: tuple[float, ...]
    """The true value before each chunk (the published accuracy)."""
    success: bool
    """The trace's own verdict: the exact value after its last chunk."""
    tokens: tuple[float, ...]
    """A continuation's length from before each chunk: the characters after it / 4."""
    problem: str = ""
    """Its folder relative to ``--dir`` (the calls file names a trace by it)."""
    real_moved: tuple[float, ...] = ()
    """Each step's chance that the model's real curve moved by ``MOVE``, from the published
    counts (``real_moved``): the truth's own noise. None known (a curve built by hand): the
    published curve's own verdict."""

    @property
    def truth(self) -> tuple[float, ...]:
        """Every boundary's true value, the exact end included."""
        return (*self.values, float(self.success))


def curves(folder: Path, limit: int | None = None) -> list[Curve]:
    """The published traces under ``folder`` (the first ``limit``), as curves."""
    found = []
    for path in thought_anchors_folders(folder)[:limit]:
        item = read_thought_anchors(path)
        trace = item.trace
        if trace.success is None:
            continue  # no verdict: the end of the curve is unknown
        length = len(trace.response)
        counts = [(t.successes, t.trials) for t in item.published.tallies]
        found.append(
            Curve(
                f"{path.parent.name.split('_')[0]}/{path.name}",
                tuple(t.successes / t.trials for t in item.published.tallies),
                trace.success,
                tuple((length - s.start) / CHARACTERS_PER_TOKEN for s in trace.segments),
                path.relative_to(folder).as_posix(),
                real_moved(counts, trace.success),
            )
        )
    return found


def simulate(
    curve: Curve,
    schedule: Schedule,
    token_budget: float,
    width: float,
    seed: int,
    limit: float | None = None,
) -> tuple[dict[int, Tally], int]:
    """The tallies ``analyze_trace`` would reach on ``curve``'s oracle with a token budget.

    As its loop: the sampled boundaries' tallies and the exact end are what the schedule sees,
    with each boundary's price (``curve.tokens``); the round is admitted as far as it fits at
    the rollouts' ``limit`` (default: the longest price, a rollout from the start) and each
    rollout is charged its price (a continuation as long as the published one); each admitted
    rollout is one draw; the loop stops when a round is empty.
    """
    count = len(curve.values)
    streams = [random.Random(seed * 1_000_003 + b) for b in range(count)]
    successes, trials = [0] * count, [0] * count
    known = {count: Tally(int(curve.success), 1, exact=True)}
    prices = dict(enumerate(curve.tokens))
    worst = dict.fromkeys(prices, max(prices.values()) if limit is None else limit)
    rounds = spent = 0
    while True:
        counted = {**{b: Tally(successes[b], trials[b]) for b in range(count)}, **known}
        asked = schedule.next_round(counted, 10**9, width, prices=prices)
        asked = affordable([b for b in asked if b < count], worst, token_budget - spent)
        if not asked:
            return counted, rounds
        for b in asked:
            successes[b] += streams[b].random() < curve.values[b]
            trials[b] += 1
            spent += prices[b]
        rounds += 1


def full_sampling(curve: Curve, seed: int = 0) -> dict[int, Tally]:
    """Thought Anchors' own sampling of ``curve``: ``REFERENCE`` rollouts before every chunk.

    Drawn from the same streams as ``simulate`` (one per boundary and seed); the exact end too.
    """
    tallies: dict[int, Tally] = {}
    for b, value in enumerate(curve.values):
        stream = random.Random(seed * 1_000_003 + b)
        tallies[b] = Tally(sum(stream.random() < value for _ in range(REFERENCE)), REFERENCE)
    tallies[len(curve.values)] = Tally(int(curve.success), 1, exact=True)
    return tallies


def analysis_of(
    curve: Curve, counted: Mapping[int, Tally], seed: int, excursion: float = EXCURSION_PRIOR
) -> StepAnalysis:
    """The ``StepAnalysis`` of the simulated tallies, read by the library's own functions."""
    count = len(curve.values)
    values: list[BoundaryValue] = []
    rollouts: list[Rollout] = []
    for b in range(count):
        tally = counted[b]
        own = [
            Rollout(b, n, n, n < tally.successes, "right" if n < tally.successes else "wrong", 0)
            for n in range(tally.trials)
        ]
        values.extend(boundary_values(own, [b]))
        rollouts.extend(own)
    values.append(exact_value(count, curve.success, "right" if curve.success else "wrong"))
    importances = step_importances(values, seed=seed)
    return StepAnalysis(
        curve.name,
        {},
        tuple(values),
        tuple(importances),
        None,
        tuple(rollouts),
        excursion=excursion,
    )
