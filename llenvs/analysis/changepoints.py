"""A value curve that moves at few steps: the changepoint posterior of the boundary values.

Most steps of a reasoning trace leave the chance of success where it was; a few move it (the
"thought anchors"). Estimating each ``v_i`` alone and ranking steps by ``|v_{i+1} - v_i|``
makes every flat step look as if it moved by its sampling noise. Here the values are a curve
that is constant between changes: each step is a change with prior probability ``prior``
(independently), each constant stretch has one value with a uniform prior, and each
boundary's rollouts are binomial draws at its stretch's value. The posterior over where the
changes are is exact (a forward-backward sum over every split of the boundaries into
stretches, O(n^2)); ``change_chances`` gives each step's chance of being a change, and
``curve_draws`` joint draws of every boundary's value, from which a step's size ``|Δ|``,
its rank and its chance of being among the top k follow. An exact tally (an ended trace's own
outcome) fixes its stretch's value.

``bench/analysis_simulated.py`` measures what ranking steps by the posterior mean size gains
over ranking them by the raw differences, on simulated curves with 1-3 jumps (its last column;
``docs/benchmarks.md``).

Example:
    >>> from llenvs.analysis.tally import Tally
    >>> tallies = {0: Tally(2, 8), 1: Tally(3, 8), 2: Tally(8, 8), 3: Tally(7, 8)}
    >>> {step: round(p, 2) for step, p in change_chances(tallies).items()}
    {0: 0.14, 1: 0.97, 2: 0.1}
    >>> draws = curve_draws(tallies, 3, random.Random(0))
    >>> len(draws), sorted(draws[0])
    (3, [0, 1, 2, 3])

"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping

from llenvs.analysis.tally import Tally

__all__ = ["CHANGE_PRIOR", "change_chances", "curve_draws"]

CHANGE_PRIOR = 0.2
"""The prior chance that a step moves the value (0.1-0.3 ranked alike in the simulation)."""


def change_chances(tallies: Mapping[int, Tally], prior: float = CHANGE_PRIOR) -> dict[int, float]:
    """Each step's posterior chance of moving the value (steps between two tallied boundaries).

    Example:
        >>> round(change_chances({0: Tally(0, 20), 1: Tally(20, 20)})[0], 6)
        1.0
        >>> change_chances({4: Tally(1, 2)})
        {}

    """
    _check(prior)
    chances: dict[int, float] = {}
    for start, chain in _chains(tallies):
        model = _Chain(chain, prior)
        total = model.forward[-1]
        for k in range(len(chain) - 1):
            joint = model.forward[k + 1] + math.log(prior) + model.backward[k + 1]
            chances[start + k] = min(1.0, math.exp(joint - total))
    return chances


def curve_draws(
    tallies: Mapping[int, Tally], draws: int, rng: random.Random, prior: float = CHANGE_PRIOR
) -> list[dict[int, float]]:
    """``draws`` joint posterior draws of every tallied boundary's value.

    Example:
        >>> [d[1] for d in curve_draws({0: Tally(1, 1, exact=True), 1: Tally(9, 9)}, 2,
        ...                            random.Random(1))]
        [1.0, 1.0]

    """
    _check(prior)
    models = [(start, _Chain(chain, prior)) for start, chain in _chains(tallies)]
    result = []
    for _ in range(draws):
        values: dict[int, float] = {}
        for start, model in models:
            for offset, value in enumerate(model.draw(rng)):
                values[start + offset] = value
        result.append(values)
    return result


def _check(prior: float) -> None:
    if not 0 < prior < 1:
        raise ValueError(f"the change prior must be in (0, 1), got {prior}")


def _chains(tallies: Mapping[int, Tally]) -> list[tuple[int, list[Tally]]]:
    """The runs of consecutive boundaries (steps lie only between neighbours)."""
    chains: list[tuple[int, list[Tally]]] = []
    for boundary in sorted(tallies):
        if chains and chains[-1][0] + len(chains[-1][1]) == boundary:
            chains[-1][1].append(tallies[boundary])
        else:
            chains.append((boundary, [tallies[boundary]]))
    return chains


def _log_sum(terms: list[float]) -> float:
    top = max(terms)
    if top == -math.inf:
        return top
    return top + math.log(sum(math.exp(t - top) for t in terms))


class _Chain:
    """The forward and backward sums of one run of boundaries, and draws from its posterior.

    ``forward[j]``: the log chance of the first j boundaries' data with a stretch ending at
    j - 1 (each change counted once, at the start of its stretch); ``backward[i]``: that of
    the data from i on, given a stretch starts at i (its own start not counted).
    """

    def __init__(self, chain: list[Tally], prior: float) -> None:
        self.chain = chain
        self.change, self.stay = math.log(prior), math.log(1 - prior)
        n = len(chain)
        # prefix sums: any stretch's counts in O(1), so the sums stay O(n^2), not O(n^3)
        self.successes = [0, *itertools.accumulate(0 if t.exact else t.successes for t in chain)]
        self.failures = [
            0,
            *itertools.accumulate(0 if t.exact else t.trials - t.successes for t in chain),
        ]
        self.exact = {
            rate: [0, *itertools.accumulate(int(t.exact and t.rate == rate) for t in chain)]
            for rate in sorted({t.rate for t in chain if t.exact})
        }
        trials = self.successes[-1] + self.failures[-1]
        self.log_factorial = [math.lgamma(k + 1) for k in range(trials + 2)]
        blocks = [[self._block(i, j) for j in range(i + 1, n + 1)] for i in range(n)]
        self.forward = [0.0] * (n + 1)  # filled in order: each needs the ones before it
        self.starts: list[list[float]] = [[]]  # per j: cumulative weights of the last start
        for j in range(1, n + 1):
            weights = [
                self.forward[i]
                + (self.change if i > 0 else 0.0)  # the stretch i..j-1 starts with a change
                + (j - 1 - i) * self.stay
                + blocks[i][j - 1 - i]
                for i in range(j)
            ]
            self.forward[j] = _log_sum(weights)
            top = max(weights)
            self.starts.append(list(itertools.accumulate(math.exp(w - top) for w in weights)))
        self.backward = [0.0] * (n + 1)
        for i in range(n - 1, -1, -1):
            self.backward[i] = _log_sum(
                [
                    blocks[i][j - 1 - i]
                    + (j - 1 - i) * self.stay
                    + (self.change + self.backward[j] if j < n else 0.0)
                    for j in range(i + 1, n + 1)
                ]
            )

    def _block(self, i: int, j: int) -> float:
        """The log marginal chance of boundaries ``i..j-1``' rollouts at one shared value."""
        successes, failures, fixed = self._counts(i, j)
        if fixed is None:  # the Beta(1, 1) integral: s! f! / (s + f + 1)!
            factorial = self.log_factorial
            return factorial[successes] + factorial[failures] - factorial[successes + failures + 1]
        if math.isnan(fixed):
            return -math.inf  # two different exact values cannot share a stretch
        return _log_power(fixed, successes) + _log_power(1 - fixed, failures)

    def _counts(self, i: int, j: int) -> tuple[int, int, float | None]:
        """Successes, failures and the exact value (None; NaN for two that differ)."""
        present = [rate for rate, count in self.exact.items() if count[j] > count[i]]
        fixed = None if not present else present[0] if len(present) == 1 else math.nan
        return (
            self.successes[j] - self.successes[i],
            self.failures[j] - self.failures[i],
            fixed,
        )

    def draw(self, rng: random.Random) -> list[float]:
        """One draw of the run's values: the stretches from the end back, then their values."""
        values = [0.0] * len(self.chain)
        j = len(self.chain)
        while j > 0:
            i = rng.choices(range(j), cum_weights=self.starts[j])[0]
            successes, failures, fixed = self._counts(i, j)
            value = rng.betavariate(successes + 1, failures + 1) if fixed is None else fixed
            values[i:j] = [value] * (j - i)
            j = i
        return values


def _log_power(base: float, exponent: int) -> float:
    """``log(base ** exponent)``, with ``0 ** 0 = 1``."""
    if exponent == 0:
        return 0.0
    return exponent * math.log(base) if base > 0 else -math.inf
