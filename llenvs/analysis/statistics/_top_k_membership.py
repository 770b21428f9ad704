"""How sure the rollouts are of the top k: each step's chance of being among the top j, j <= k.

The boundary values are drawn together from their posterior (``value_draws``: by default a
curve that moves at few steps, ``llenvs.analysis.statistics``; or each value alone from its
Beta posterior), which gives, for every step, its chance of being among the top 1, the top 2,
... the top k largest ``|v_{i+1} - v_i|`` (``rank_chances``; the last is ``top_k_membership``).
``top_steps_round`` spends rollouts where these chances are in doubt; ``TopSteps`` reports them.
The draws are seeded by the tallies: the same tallies give the same chances.

Example:
    >>> from llenvs.analysis.statistics._tally import Tally
    >>> flat, jump = Tally(4, 8), Tally(8, 8)
    >>> tallies = {0: flat, 1: flat, 2: jump, 3: jump, 4: Tally(1, 8)}
    >>> {step: round(p, 1) for step, p in top_k_membership(tallies, top_k=2).items()}
    {0: 0.0, 1: 0.9, 2: 0.0, 3: 1.0}

"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from llenvs.analysis.statistics._changepoints import CHANGE_PRIOR
from llenvs.analysis.statistics._tally import Tally
from llenvs.analysis.statistics._top_steps import DRAWS, _count_places, _places, _steps

__all__ = ["rank_chances", "top_k_membership", "top_k_membership_of"]


def top_k_membership(
    tallies: Mapping[int, Tally],
    top_k: int,
    draws: int = DRAWS,
    change_prior: float | None = CHANGE_PRIOR,
) -> dict[int, float]:
    """The chance that each step is among the ``top_k`` largest ``|v_{i+1} - v_i|``.

    Only steps whose two boundaries are both tallied count. The values are drawn together
    (``value_draws`` with ``change_prior``); a step's chance is the share of draws in which
    it is strictly among the top k (a step tied with the first one out is not in: flat steps
    of one stretch all have size 0, and the places past the last step have size 0: with k
    steps or fewer, a step is in wherever it moved the value, not trivially). Seeded by the
    tallies.

    Example:
        >>> from llenvs.analysis.statistics._tally import Tally
        >>> top_k_membership({0: Tally(0, 30), 1: Tally(30, 30), 2: Tally(30, 30)}, 1)
        {0: 1.0, 1: 0.0}
        >>> top_k_membership({0: Tally(0, 30), 1: Tally(30, 30), 2: Tally(30, 30)}, 3)
        {0: 1.0, 1: 0.0}
        >>> top_k_membership({5: Tally(0, 0), 7: Tally(0, 0)}, 1)
        {}

    """
    chances = rank_chances(tallies, top_k, draws, change_prior)
    return {step: row[-1] for step, row in chances.items()}


def top_k_membership_of(values: Sequence[Mapping[int, float]], top_k: int) -> dict[int, float]:
    """``top_k_membership`` over joint draws already made (``value_draws``' list), not new ones.

    For a caller that needs the same draws for more than one reading (``StepAnalysis``: the
    steps' sizes and their top-k chances), so they are drawn once: given ``value_draws(tallies,
    n, change_prior)``, the result equals ``top_k_membership(tallies, top_k, n,
    change_prior)``. Steps are those whose two boundaries every draw holds; no draws, no steps.

    Example:
        >>> from llenvs.analysis.statistics._tally import Tally
        >>> from llenvs.analysis.statistics._top_steps import value_draws
        >>> tallies = {0: Tally(0, 30), 1: Tally(30, 30), 2: Tally(30, 30)}
        >>> top_k_membership_of(value_draws(tallies, 200), 3)
        {0: 1.0, 1: 0.0}
        >>> top_k_membership_of([], 1)
        {}

    """
    if top_k < 1:
        raise ValueError(f"top_k must be >= 1, got {top_k}")
    if not values:
        return {}
    places = _count_places(values, _steps(values[0]), top_k, 0.0)
    return {step: row[-1][0] / len(values) for step, row in places.items()}


def rank_chances(
    tallies: Mapping[int, Tally],
    top_k: int,
    draws: int = DRAWS,
    change_prior: float | None = CHANGE_PRIOR,
) -> dict[int, list[float]]:
    """For each step, its chance of being among the top 1, the top 2, ... the top ``top_k``.

    As ``top_k_membership`` (the last of each list), for every threshold up to ``top_k``.

    Example:
        >>> from llenvs.analysis.statistics._tally import Tally
        >>> chances = rank_chances({b: Tally(0 if b == 0 else 30, 30) for b in range(4)}, 2)
        >>> {step: [round(p, 1) for p in row] for step, row in chances.items()}
        {0: [1.0, 1.0], 1: [0.0, 0.0], 2: [0.0, 0.0]}
        >>> chances = rank_chances({b: Tally(0 if b == 0 else 30, 30) for b in range(4)}, 2,
        ...                        change_prior=None)  # each value alone: flat steps never tie
        >>> {step: [round(p, 1) for p in row] for step, row in chances.items()}
        {0: [1.0, 1.0], 1: [0.0, 0.5], 2: [0.0, 0.5]}

    """
    places = _places(tallies, top_k, draws, 0.0, change_prior)
    return {step: [inside / draws for inside, _ in row] for step, row in places.items()}
