"""Where the black box and the white box agree: the step matrix against attention suppression.

The two instruments measure different things (how often step j's content comes back when step i
is kept, and how much the model's reading of step j changes when it cannot see step i), so the
question a reader asks of the two heatmaps side by side is whether they rank the same cells
high. ``instrument_agreement`` answers it with Spearman's rank correlation over the cells both
have, beside the simplest rival that could explain the KL alone: closeness. Nearby steps lean on
each other whatever they say, so the KL's correlation with ``1 / (j - i)`` is given too; a
matrix agreement no larger than that says little beyond "near steps matter".

Example:
    >>> matrix = [[None, 0.5, 0.1], [None, None, 0.3], [None, None, None]]
    >>> kl = [[None, 0.9, 0.2], [None, None, 0.6], [None, None, None]]
    >>> found = instrument_agreement(matrix, kl)
    >>> found.cells, round(found.rho, 2), round(found.closeness_rho, 2)
    (3, 1.0, 0.87)

"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["InstrumentAgreement", "instrument_agreement"]


@dataclass(frozen=True)
class InstrumentAgreement:
    """Spearman's rho of the two instruments over their shared cells, and closeness's rho."""

    cells: int
    """Cells (i < j) with a value in both."""
    rho: float
    """The rank correlation of the matrix's values with the KL (NaN: fewer than 3 cells, or a
    constant side)."""
    closeness_rho: float
    """The rank correlation of the KL with ``1 / (j - i)`` over the same cells: the rival."""

    def caption(self) -> str:
        """One line for people.

        Example:
            >>> print(InstrumentAgreement(40, 0.12, 0.55).caption())
            Over 40 cells in both: the two rank cells alike with Spearman's rho 0.12; closeness alone (1/(j−i)) ranks the KL with rho 0.55, so the KL follows distance more than it follows the rollouts.

        """  # noqa: E501
        if self.cells < 3 or math.isnan(self.rho):
            return f"Too few cells in both ({self.cells}) to say whether the two agree."
        head = (
            f"Over {self.cells} cells in both: the two rank cells alike with Spearman's rho "
            f"{self.rho:.2f}; closeness alone (1/(j−i)) ranks the KL with rho "
            f"{self.closeness_rho:.2f}"
        )
        if not math.isnan(self.closeness_rho) and abs(self.closeness_rho) >= abs(self.rho):
            return f"{head}, so the KL follows distance more than it follows the rollouts."
        return f"{head}."


def instrument_agreement(
    matrix: Sequence[Sequence[float | None]], kl: Sequence[Sequence[float | None]]
) -> InstrumentAgreement:
    """How alike ``matrix`` (``StepMatrix.rows()``) and ``kl`` (``Suppression.kl``) rank cells."""
    from scipy.stats import spearmanr

    pairs = [
        (value, kl[i][j], 1.0 / (j - i))
        for i, row in enumerate(matrix)
        for j, value in enumerate(row)
        if j > i and value is not None and i < len(kl) and j < len(kl[i])
        if kl[i][j] is not None
    ]
    if len(pairs) < 3:
        return InstrumentAgreement(len(pairs), math.nan, math.nan)
    values, divergences, closeness = zip(*pairs, strict=True)
    return InstrumentAgreement(
        len(pairs),
        _rho(spearmanr(values, divergences)),
        _rho(spearmanr(closeness, divergences)),
    )


def _rho(result: object) -> float:
    value = float(getattr(result, "statistic", math.nan))
    return value if math.isfinite(value) else math.nan
