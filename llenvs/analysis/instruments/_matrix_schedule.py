"""``MatrixSchedule``: rollouts to the boundaries of the step matrix's widest cells.

A cell ``(i, j)`` of the step-to-step matrix compares the rollouts from before step i with
those from before step i + 1 (``StepMatrix``), so its interval narrows as either boundary gets
rollouts. After a first round that gives every boundary ``initial`` rollouts, each round reads
the matrix of the rollouts so far (``widths``: each boundary's widest cell, ``matrix_widths``)
and gives its ``round_size`` rollouts one at a time to the boundary whose widest cell is widest,
over one plus what this round already gave it; a boundary whose cells are all narrower than the
target width gets none. ``llenvs analyze --matrix --budget K`` spends its K rollouts this way.

Example:
    >>> from llenvs.analysis.statistics import Tally
    >>> schedule = MatrixSchedule(widths=lambda: {0: 1.2, 1: 1.2, 2: 0.3}, initial=2, round_size=3)
    >>> schedule.next_round({0: Tally(0, 0), 1: Tally(0, 0), 2: Tally(0, 0)}, 20, 0.5)
    [0, 1, 2, 0, 1, 2]
    >>> schedule.next_round({b: Tally(1, 2) for b in range(3)}, 20, 0.5)
    [0, 0, 1]

"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from llenvs.analysis.instruments._step_matrix import StepMatrix
from llenvs.analysis.statistics import RoundSchedule, Tally

__all__ = ["MatrixSchedule", "matrix_widths"]


def matrix_widths(matrix: StepMatrix) -> dict[int, float]:
    """Each boundary's widest cell: the width of the widest interval of a cell it holds up.

    Cell ``(i, j)`` rests on boundaries ``i`` and ``i + 1``.

    Example:
        >>> from llenvs.analysis.instruments import MatrixCell
        >>> matrix = StepMatrix(3, "lexical", 0.8, (MatrixCell(0, 2, (0, 4), (4, 4)),))
        >>> {b: round(w, 2) for b, w in matrix_widths(matrix).items()}
        {0: 0.69, 1: 0.69}

    """
    widths: dict[int, float] = {}
    for cell in matrix.cells:
        interval = cell.interval
        width = interval.high - interval.low
        for boundary in (cell.source, cell.source + 1):
            widths[boundary] = max(widths.get(boundary, 0.0), width)
    return widths


@dataclass(frozen=True, kw_only=True)
class MatrixSchedule(RoundSchedule):
    """After ``initial`` rollouts per boundary, rounds to where the matrix's cells are widest."""

    widths: Callable[[], Mapping[int, float]]
    """Each boundary's widest cell, read from the rollouts so far (``matrix_widths``)."""
    round_size: int | None = 8
    """Rollouts in each later round."""

    def later_round(
        self,
        tallies: Mapping[int, Tally],
        open_: dict[int, Tally],
        size: int,
        width: float,
        cost: Mapping[int, float],
    ) -> list[int]:
        """``size`` rollouts to the boundaries of the widest cells (see the module).

        Each goes to the boundary whose widest cell is widest over one plus what this round
        gave it; none once every cell is narrower than ``width``.
        """
        wide = {b: w for b, w in self.widths().items() if b in open_ and w > width}
        given: Counter[int] = Counter()
        for _ in range(size if wide else 0):
            given[max(wide, key=lambda b: (wide[b] / (1 + given[b]), -b))] += 1
        return [b for b in sorted(given) for _ in range(given[b])]
