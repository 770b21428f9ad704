"""Scoring a step analysis against a published curve: what it got right, step by step.

``score`` counts, for one trace and one run, the boundary values its intervals cover, the
importances, the moves it called (and whether they were true, lasting, near a true one), its
sure top steps, its cost in tokens, and every step's call (``StepCall``, which
``llenvs.analysis.statistics.score_calls`` scores); ``call_lines`` writes those calls as lines of
the calls file (issue 51). A move is a true ``|Δv| >= δ`` within the library's tolerance
(``moved_by``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from published_curves import REFERENCE, Curve

from llenvs.analysis import StepAnalysis
from llenvs.analysis.statistics import (
    MOVE_DELTA,
    MOVED_CHANCE,
    CallScores,
    StepCall,
    Tally,
    moved_by,
    score_calls,
    trace_interval,
)

MOVE = MOVE_DELTA
"""A step whose true ``|v_{i+1} - v_i|`` is at least this is a move: the library's δ, which
``StepAnalysis.moved`` reads too."""

NEAR = 2
"""A called step is *near* a move when the true value changes by ``MOVE`` within this many
steps on either side: the change is there, its place is off by a step or two (a drift)."""

LASTS = 5
"""A move *lasts* when the mean of the ``LASTS`` values after it differs from the mean of the
``LASTS`` values up to it by at least half the move; otherwise it is transient."""

TOP_K = 3
"""The top k of ``StepAnalysis.top_steps``."""


@dataclass
class Score:
    """Counts summed over traces and seeds, from which every column is a ratio."""

    values: int = 0
    values_covered: int = 0
    error: float = 0.0
    steps: int = 0
    steps_covered: int = 0
    steps_width: float = 0.0
    moves: int = 0
    lasting: int = 0
    """True moves that last (``lasts``); the others are transient: a wiggle that reverts."""
    called: int = 0
    called_true: int = 0
    called_lasting: int = 0
    called_near: int = 0
    """Called steps with a true net change of at least ``MOVE`` within ``NEAR`` steps."""
    excluding: int = 0
    excluding_true: int = 0
    sure: int = 0
    sure_in_top: int = 0
    rollouts: int = 0
    tokens: float = 0.0
    reference_tokens: float = 0.0
    chunks: int = 0
    scheduling: float = 0.0
    """Seconds in the simulated round loop (mostly ``next_round``)."""
    reading: float = 0.0
    """Seconds reading the tallies (values, bootstrap intervals, changepoint posterior)."""
    calls: list[StepCall] = field(default_factory=list)
    """Every step's true change, stated chance and call (``score_calls`` reads them)."""
    stated: list[tuple[float, bool, float]] = field(default_factory=list)
    """Every step's stated chance of a move of ``MOVE``, whether the published curve moved so,
    and the chance that the real curve did (``Curve.real_moved``)."""

    def add(self, other: Score) -> None:
        """Add ``other``'s counts to these."""
        for name, value in vars(other).items():
            setattr(self, name, getattr(self, name) + value)


def is_move(truth: Sequence[float], step: int) -> bool:
    """Whether the true value moves by ``MOVE`` or more across ``step``.

    The library's ``moved_by``: within ``MOVE_TOLERANCE``, so 0.67 → 0.87 is a move as
    0.92 → 0.72 is.
    """
    return moved_by(truth[step + 1] - truth[step], MOVE)


def true_top(truth: Sequence[float], top_k: int) -> set[int]:
    """The steps whose true ``|Δ|`` is at least the k-th largest (ties all in)."""
    sizes = [abs(b - a) for a, b in itertools.pairwise(truth)]
    cut = sorted(sizes, reverse=True)[min(top_k, len(sizes)) - 1]
    return {s for s, size in enumerate(sizes) if size >= cut}


def lasts(truth: Sequence[float], step: int) -> bool:
    """Whether the true move at ``step`` lasts (``LASTS``), not a wiggle that reverts."""
    before = truth[max(0, step + 1 - LASTS) : step + 1]
    after = truth[step + 1 : step + 1 + LASTS]
    move = abs(truth[step + 1] - truth[step])
    return abs(sum(after) / len(after) - sum(before) / len(before)) >= move / 2


def near(truth: Sequence[float], step: int) -> bool:
    """Whether the true value changes by ``MOVE`` between ``step - w`` and ``step + 1 + w``."""
    last = len(truth) - 1
    return any(
        moved_by(truth[min(last, step + 1 + w)] - truth[max(0, step - w)], MOVE)
        for w in range(NEAR + 1)
    )


def score(curve: Curve, analysis: StepAnalysis, counted: Mapping[int, Tally]) -> Score:
    """What ``analysis`` got right of ``curve``'s truth."""
    truth = curve.truth
    result = Score(chunks=len(curve.values))
    for value in analysis.values:
        if value.exact or value.value is None:
            continue
        result.values += 1
        result.values_covered += value.interval.low <= truth[value.boundary] <= value.interval.high
        result.error += abs(value.value - truth[value.boundary])
    moved = analysis.moved
    for step in analysis.importances:
        delta = truth[step.step + 1] - truth[step.step]
        inside = step.interval.low <= delta <= step.interval.high
        result.steps += 1
        result.steps_covered += inside
        result.steps_width += step.interval.width
        real = is_move(truth, step.step)
        lasting = real and lasts(truth, step.step)
        result.moves += real
        result.lasting += lasting
        chance = moved.get(step.step, 0.0)
        result.calls.append(StepCall(curve.name, step.step, delta, chance, chance > MOVED_CHANCE))
        if step.step in moved:
            noisy = curve.real_moved
            real_chance = noisy[step.step] if step.step < len(noisy) else float(real)
            result.stated.append((moved[step.step], real, real_chance))
        if moved.get(step.step, 0.0) > MOVED_CHANCE:
            result.called += 1
            result.called_true += real
            result.called_lasting += lasting
            result.called_near += near(truth, step.step)
        if step.interval.low > 0 or step.interval.high < 0:
            result.excluding += 1
            result.excluding_true += real
    top = true_top(truth, TOP_K)
    sure = analysis.top_steps(TOP_K).sure
    result.sure, result.sure_in_top = len(sure), len(set(sure) & top)
    result.rollouts = sum(t.trials for t in counted.values() if not t.exact)
    result.tokens = sum(counted[b].trials * curve.tokens[b] for b in range(len(curve.values)))
    result.reference_tokens = REFERENCE * sum(curve.tokens)
    return result


def call_lines(
    curve: Curve, result: Score, schedule: str, budget: float, seed: int
) -> list[dict[str, object]]:
    """One run's lines of the calls file: a line per step, then the run's (issue 51).

    Example:
        >>> c = Curve("x", (0.5, 0.5), True, (10.0, 5.0), problem="m/correct/problem_1")
        >>> r = Score(calls=[StepCall("x", 0, 0.0, 0.01, False)], tokens=30.0,
        ...           reference_tokens=1500.0)
        >>> [line["kind"] for line in call_lines(c, r, "default", 0.25, 0)]
        ['step', 'run']

    """
    head = {"schedule": schedule, "budget": budget, "seed": seed, "problem": curve.problem}
    steps: list[dict[str, object]] = [
        {"kind": "step", **head, "step": c.step, "chance": c.chance, "called": c.called}
        for c in result.calls
    ]
    tokens = {"tokens": result.tokens, "ta_tokens": result.reference_tokens}
    run_line = {"kind": "run", **head, **tokens}
    return [*steps, run_line]


MEASURES: dict[str, Callable[[CallScores], float]] = {
    "recall": lambda x: x.recall,
    "precision": lambda x: x.precision,
    "ECE": lambda x: x.ece,
    "Brier skill": lambda x: x.brier_skill,
    "confident misses": lambda x: x.confident_misses,
}
"""The issue-51 measures of a set of calls, in the tables' order."""


def interval_cells(calls: Sequence[StepCall], margin: float, resamples: int) -> list[str]:
    """The ``MEASURES`` of ``calls`` as table cells, each with its 95% interval over traces.

    The ECE's cell ends with the count of steps it is over, in brackets.

    Example:
        >>> calls = [StepCall(t, 0, d, c, c > 0.5) for t, d, c in
        ...          [("a", 0.3, 0.9), ("b", 0.0, 0.1), ("c", 0.3, 0.2), ("d", 0.0, 0.0)]]
        >>> interval_cells(calls, 0.05, 0)
        ['0.50', '1.00', '0.33 (3)', '0.34', '0.00']

    """
    scores = score_calls(calls, margin)
    cells = []
    for measure in MEASURES.values():
        value = measure(scores)
        shown = "–" if math.isnan(value) else f"{value:.2f}"
        interval = trace_interval(calls, measure, margin, resamples) if resamples else None
        if interval is not None:
            shown += f" [{interval.low:.2f}, {interval.high:.2f}]"
        cells.append(shown)
    cells[2] += f" ({scores.calibrated_steps})"
    return cells
