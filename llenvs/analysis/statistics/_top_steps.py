"""Which steps mattered most: rounds that settle the top k steps by |importance|, in order.

The question users ask of a trace is "which steps mattered most?": the k steps with the largest
``|v_{i+1} - v_i|``, most important first. To answer it on a budget, the rollouts go where that
answer is still in doubt (top-k identification, racing style). The boundary values are drawn
together from their posterior (``value_draws``: by default a curve that moves at few steps,
``llenvs.analysis.statistics``; or each value alone from its Beta posterior), which gives, for
every step, its chance of being among the top 1, the top 2, ... the top k
(``llenvs.analysis.statistics``). A step is settled at a threshold once that chance is
below ``1 - confidence`` or above ``confidence``; the steps unsettled at some threshold are the
contenders (the steps near the j-th/(j+1)-th place, for j up to k). Each rollout of a round goes
to the boundary whose next rollout narrows the contenders it borders most, weighted by how much
each is in doubt (``p (1 - p)``, summed over its unsettled thresholds): a boundary shared by two
contenders counts for both, and a boundary whose rate is more uncertain counts more. The draws
are seeded by the tallies: the same tallies give the same round.

Example:
    >>> from llenvs.analysis.statistics._tally import Tally
    >>> flat, jump = Tally(4, 8), Tally(8, 8)
    >>> tallies = {0: flat, 1: flat, 2: jump, 3: jump, 4: Tally(1, 8)}
    >>> top_steps_round(tallies, top_k=2, size=4)
    [1, 1, 1, 1]
    >>> top_steps_round({0: Tally(0, 40), 1: Tally(40, 40), 2: Tally(40, 40)}, 1, 4)
    []

"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field

from llenvs.analysis.statistics._changepoints import CHANGE_PRIOR, EXCURSION_PRIOR, curve_draws
from llenvs.analysis.statistics._tally import Tally

__all__ = [
    "CONFIDENCE",
    "DRAWS",
    "MOVED_CHANCE",
    "NOTHING_MOVED",
    "TOLERANCE",
    "TopSteps",
    "top_steps_round",
    "value_draws",
]

DRAWS = 200
"""Joint posterior draws per round (each draws every boundary's value once)."""

CONFIDENCE = 0.95
"""A step is settled when its chance of being in the top k is above this, or below 1 - this."""

MOVED_CHANCE = 0.5
"""A step moved the value *detectably* when its posterior change chance is above this.

The change chance is ``change_chances``' (a step moves the value with prior chance
``CHANGE_PRIOR``, 0.2). Above 1/2 the data make "it moved" more likely than "it did not": the
median-probability model (Barbieri and Berger, 2004, the selection of changes that predicts
best), and a Bayes factor of at least 4 over the prior odds of 1 to 4. Fewer rollouts than
that evidence needs (a boundary with one rollout, a flat curve) leave every step below it, and
no step is then called important, however few steps a trace has: with k at least the number of
steps every step is trivially in the top k, which says nothing of whether it mattered.
"""

NOTHING_MOVED = "no step moved the value detectably at this budget"
"""What ``TopSteps.describe`` says when no step's change chance is above ``MOVED_CHANCE``."""

TOLERANCE = 0.0
"""Steps whose sizes differ by less than this count as tied: which ranks first is no doubt.

0 by default: in the simulation of ``bench/analysis_simulated.py``, 0.05 and 0.1 found the
true top steps no more often (with few steps that matter, a positive tolerance stops the
spending on the order of the flat ones, which no budget settles).
"""


@dataclass(frozen=True)
class TopSteps:
    """The top k steps of a trace, and how sure its rollouts are of each.

    ``steps`` are the k largest ``|v_{i+1} - v_i|`` as estimated (what a table shows);
    ``chances`` give each step's chance of truly being among the top k (``top_k_membership``:
    a step that did not move the value is in no top k); ``moved`` each step's chance of having
    moved the value at all (``change_chances``). A step is *detected* when that chance is above
    ``MOVED_CHANCE`` (evidence that it moved), and only a detected step is called important:
    *sure* when its top-k chance is also at least ``confidence``. A step is *ruled out* when its
    top-k chance is at most ``1 - confidence``, and *in doubt* otherwise: with one or two steps
    that move the value, third place is often a near-tie among flat steps that no budget
    settles, and saying so is the honest answer to "which steps mattered most?".

    Example:
        >>> moved = {0: 0.9, 1: 0.6, 2: 1.0, 3: 0.0}
        >>> verdict = TopSteps((2, 0), {0: 0.5, 1: 0.5, 2: 1.0, 3: 0.0}, moved)
        >>> verdict.sure, verdict.doubtful, verdict.ruled_out
        ((2,), (0, 1), (3,))
        >>> verdict.agrees([2, 1]), verdict.agrees([0, 3])
        (True, False)
        >>> verdict.describe()
        '2 (sure), 0 (in doubt); also in doubt: 1'
        >>> TopSteps((0, 1), {0: 1.0, 1: 1.0}, {0: 0.06, 1: 0.04}).headline()
        'no step moved the value detectably at this budget'

    """

    steps: tuple[int, ...]
    """The top k steps by estimated ``|importance|``, largest first."""
    chances: Mapping[int, float]
    """Each step's chance of being among the top k."""
    moved: Mapping[int, float] = field(default_factory=dict)
    """Each step's chance of having moved the value at all (absent: no evidence)."""
    confidence: float = CONFIDENCE
    """The chance at which a step counts as sure (and ``1 - confidence``: ruled out)."""

    @property
    def detected(self) -> tuple[int, ...]:
        """The steps that moved the value detectably (``MOVED_CHANCE``): ``steps`` order first."""
        return self._ordered([self.moved.get(s, 0.0) > MOVED_CHANCE for s in self.chances])

    @property
    def sure(self) -> tuple[int, ...]:
        """The detected steps surely among the top k: ``steps`` order first, then by step."""
        found = set(self.detected)
        return self._ordered([p >= self.confidence and s in found for s, p in self.chances.items()])

    @property
    def ruled_out(self) -> tuple[int, ...]:
        """The steps surely not among the top k, by step."""
        return self._ordered([p <= 1 - self.confidence for p in self.chances.values()])

    @property
    def doubtful(self) -> tuple[int, ...]:
        """The steps neither sure nor ruled out: ``steps`` order first, then by step."""
        settled = {*self.sure, *self.ruled_out}
        return self._ordered([s not in settled for s in self.chances])

    def agrees(self, steps: Collection[int]) -> bool:
        """Whether ``steps`` (another top k) hold every sure step and no ruled-out one.

        The test of another estimate that these rollouts can make: where they cannot tell
        which steps are in the top k, either answer agrees.
        """
        chosen = set(steps)
        return set(self.sure) <= chosen and not chosen & set(self.ruled_out)

    def describe(self) -> str:
        """A caption of the detected ``steps``: ``3 (sure), 5 (in doubt); also in doubt: 1``.

        A step of ``steps`` that did not move the value detectably is left out (it is not
        called important); with none left: ``no step moved the value detectably at this
        budget``. The steps in doubt that are not shown are named once, at the end (the
        first three, then ``…``).
        """
        found = set(self.detected)
        parts = []
        for step in (s for s in self.steps if s in found):
            standing = (
                "sure" if step in self.sure else "in doubt" if step in self.doubtful else "unlikely"
            )
            parts.append(f"{step} ({standing})")
        if not parts:
            return NOTHING_MOVED
        others = [str(s) for s in self.doubtful if s not in self.steps or s not in found]
        if len(others) > 3:
            others[3:] = ["…"]
        text = ", ".join(parts)
        return f"{text}; also in doubt: {', '.join(others)}" if others else text

    def headline(self) -> str:
        """``most important steps: <describe()>``, or ``NOTHING_MOVED`` when none moved.

        Example:
            >>> TopSteps((1,), {1: 1.0}, {1: 0.99}).headline()
            'most important steps: 1 (sure)'

        """
        text = self.describe()
        return text if text == NOTHING_MOVED else f"most important steps: {text}"

    def _ordered(self, keep: list[bool]) -> tuple[int, ...]:
        chosen = {s for s, k in zip(self.chances, keep, strict=True) if k}
        first = [s for s in self.steps if s in chosen]
        return (*first, *sorted(chosen - set(first)))


def _places(
    tallies: Mapping[int, Tally],
    top_k: int,
    draws: int,
    tolerance: float,
    change_prior: float | None,
) -> dict[int, list[tuple[int, int]]]:
    """Per step and threshold j: the draws where it is in the top j, and out of it.

    A draw in which the j-th and (j+1)-th sizes are less than ``tolerance`` apart counts as
    neither at threshold j: either answer is right enough there. Steps whose size equals the
    cut's (flat steps in one stretch of the changepoint model: all 0) count as neither too: a
    tie for last place is not a place. With k steps or fewer, the places past the last step
    have size 0: a step is in wherever it moved the value at all (size above 0), so a flat
    step is not trivially in the top k of a short trace.
    """
    if draws < 1:
        raise ValueError(f"draws must be >= 1, got {draws}")
    if top_k < 1:
        raise ValueError(f"top_k must be >= 1, got {top_k}")
    steps = _steps(tallies)
    if not steps:
        return {}
    return _count_places(value_draws(tallies, draws, change_prior), steps, top_k, tolerance)


def _steps(boundaries: Collection[int]) -> list[int]:
    """The steps whose two boundaries are both in ``boundaries``, in order."""
    return [b for b in sorted(boundaries) if b + 1 in boundaries]


def _count_places(
    values: Iterable[Mapping[int, float]], steps: list[int], top_k: int, tolerance: float
) -> dict[int, list[tuple[int, int]]]:
    """``_places`` over the joint draws ``values`` of the boundaries of ``steps``."""
    inside = {step: [0] * top_k for step in steps}
    outside = {step: [0] * top_k for step in steps}
    for value in values:
        size = {s: abs(value[s + 1] - value[s]) for s in steps}
        ranked = [*sorted(size.values(), reverse=True), *[0.0] * (top_k + 1)]
        for threshold in range(top_k):
            last_in, first_out = ranked[threshold], ranked[threshold + 1]
            if last_in - first_out < tolerance:
                continue
            for step, own in size.items():
                if own > first_out:
                    inside[step][threshold] += 1
                elif own < last_in:
                    outside[step][threshold] += 1
    return {step: list(zip(inside[step], outside[step], strict=True)) for step in steps}


def value_draws(
    tallies: Mapping[int, Tally],
    draws: int,
    change_prior: float | None = CHANGE_PRIOR,
    excursion: float = EXCURSION_PRIOR,
) -> list[dict[int, float]]:
    """Joint posterior draws of every boundary's value, seeded by the tallies.

    With ``change_prior``, the curve moves at few steps (``curve_draws``: a step is a change
    with that prior chance, and departs for one boundary with ``excursion``); None draws each
    value alone from ``Beta(successes + 1, failures + 1)``. An ``exact`` tally's value is its
    rate either way.

    Example:
        >>> from llenvs.analysis.statistics._tally import Tally
        >>> tallies = {0: Tally(5, 10), 1: Tally(5, 10)}
        >>> alike = value_draws(tallies, 100)
        >>> sum(d[0] == d[1] for d in alike) > 50, value_draws(tallies, 100) == alike
        (True, True)
        >>> any(d[0] == d[1] for d in value_draws(tallies, 100, None))
        False

    """
    rng = random.Random(repr(sorted((b, t.successes, t.trials) for b, t in tallies.items())))
    if change_prior is not None:
        return curve_draws(tallies, draws, rng, change_prior, excursion)
    return [
        {
            b: t.rate if t.exact else rng.betavariate(t.successes + 1, t.trials - t.successes + 1)
            for b, t in tallies.items()
        }
        for _ in range(draws)
    ]


def top_steps_round(
    tallies: Mapping[int, Tally],
    top_k: int,
    size: int,
    *,
    confidence: float = CONFIDENCE,
    tolerance: float = TOLERANCE,
    draws: int = DRAWS,
    change_prior: float | None = CHANGE_PRIOR,
) -> list[int]:
    """The boundaries of a round of ``size`` rollouts spent on settling the top ``top_k``.

    Each rollout goes, one at a time, to the boundary with the largest gain: for each unsettled
    step it borders, the step's doubt (``p (1 - p)`` summed over the thresholds j <= k where
    ``p``, its chance of being in the top j, is within ``(1 - confidence, confidence)``; draws
    where the j-th and (j+1)-th sizes are within ``tolerance`` count neither way) times how
    much one more rollout there shrinks the step's standard error (the round's earlier
    rollouts counted, at the boundary's current rate); an ``exact`` boundary (a known value)
    is never given one. Empty when every step is settled, when ``top_k`` is 0, or when
    ``size`` is 0.

    Example:
        >>> from llenvs.analysis.statistics._tally import Tally
        >>> top_steps_round({0: Tally(2, 4), 1: Tally(4, 4), 2: Tally(3, 4)}, 1, 3)
        [0, 1, 2]
        >>> top_steps_round({0: Tally(2, 4), 1: Tally(4, 4)}, 1, 3)
        []
        >>> known = {0: Tally(0, 4), 1: Tally(2, 4), 2: Tally(1, 1, exact=True)}
        >>> top_steps_round(known, 1, 3)  # boundary 1 borders both steps; 2 is never sampled
        [1, 1, 1]

    """
    if not 0.5 < confidence < 1:
        raise ValueError(f"confidence must be in (0.5, 1), got {confidence}")
    if top_k <= 0 or size <= 0:
        return []
    doubt = {}
    for step, row in _places(tallies, top_k, draws, tolerance, change_prior).items():
        unsettled = [
            inside * outside / (draws * draws)
            for inside, outside in row
            if min(inside, outside) > (1 - confidence) * draws
        ]
        if unsettled:
            doubt[step] = sum(unsettled)
    if not doubt:
        return []
    extra = dict.fromkeys(tallies, 0)

    def variance(boundary: int, more: int = 0) -> float:
        tally = tallies[boundary]
        if tally.exact:
            return 0.0
        rate = (tally.successes + 1) / (tally.trials + 2)
        return rate * (1 - rate) / (tally.trials + extra[boundary] + more + 2)

    def gain(boundary: int) -> float:
        total = 0.0
        for step in (boundary - 1, boundary):
            if step in doubt:
                other = step + 1 if boundary == step else step
                now = math.sqrt(variance(boundary) + variance(other))
                total += doubt[step] * (now - math.sqrt(variance(boundary, 1) + variance(other)))
        return total

    bordering = sorted({b for s in doubt for b in (s, s + 1) if not tallies[b].exact})
    if not bordering:
        return []
    chosen = []
    for _ in range(size):
        boundary = max(bordering, key=lambda b: (gain(b), -b))
        extra[boundary] += 1
        chosen.append(boundary)
    return sorted(chosen)
