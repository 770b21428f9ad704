"""Calibration on real curves: stated chances of a move against the truth and its own noise.

``bench/thought_anchors.py`` scores every step's stated chance of a move of δ
(``StepAnalysis.moved``); this module bins those chances (the reliability table) against how
often the published curve moved so, and against the chance that the model's real curve did:
each published value is the mean of about 100 continuations, so the truth has noise of its own
(``real_moved``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from llenvs.analysis.statistics import MOVE_DELTA, MOVE_TOLERANCE

MOVE = MOVE_DELTA
"""The size of a move: the library's δ."""

Stated = tuple[float, bool, float]
"""One step: its stated chance of a move, whether the published curve moved so, and the chance
that the real curve did."""

BINS = (0.0, 0.05, 0.2, 0.4, 0.6, 0.8, 0.95, 1.0)
"""The reliability table's bins of stated chance (the last one closed)."""

NOISE_DRAWS = 4000
"""Draws of each published value's Beta posterior, for the chance that the real curve moved."""


def real_moved(counts: Sequence[tuple[int, int]], success: bool) -> tuple[float, ...]:
    """Each step's chance that the real curve moved by ``MOVE``, given the published counts.

    Each published value is the mean of its ~100 continuations: the real value behind it is
    drawn from its Beta(s + 1/2, f + 1/2) posterior (Jeffreys), each boundary on its own (no
    model of the curve, so that the truth does not borrow the method's assumptions), the end
    exact; a step's chance is the share of draws ``MOVE`` or more apart.

    Example:
        >>> chances = real_moved([(90, 100), (50, 100)], success=False)
        >>> chances[0] > 0.99, chances[1] > 0.99  # 0.9 → 0.5, then 0.5 → 0 (the verdict)
        (True, True)
        >>> real_moved([(50, 100), (52, 100)], success=True)[0] < 0.01
        True

    """
    generator = np.random.default_rng(0)
    draws = [generator.beta(s + 0.5, n - s + 0.5, NOISE_DRAWS) for s, n in counts]
    draws.append(np.full(NOISE_DRAWS, float(success)))
    return tuple(
        float(np.mean(np.abs(b - a) >= MOVE - MOVE_TOLERANCE)) for a, b in itertools.pairwise(draws)
    )


def binned(rows: Sequence[Stated]) -> list[tuple[float, float, list[Stated]]]:
    """``rows`` in ``BINS`` by their stated chance (the last bin closed), empty bins left out.

    Example:
        >>> [(low, len(rows)) for low, _, rows in binned([(0.01, False, 0.0), (1.0, True, 1.0)])]
        [(0.0, 1), (0.95, 1)]

    """
    bins = []
    for low, high in itertools.pairwise(BINS):
        inside = [r for r in rows if low <= r[0] < high or (high == 1.0 and r[0] == 1.0)]
        if inside:
            bins.append((low, high, inside))
    return bins


def reliability_table(rows: Sequence[Stated]) -> list[str]:
    """Steps binned by their stated chance of a move, against how often it truly was one."""
    lines = [
        f"| stated chance of \\|Δv\\| ≥ {MOVE} | steps | mean stated | moved on the published "
        "curve | real curve moved (mean chance) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for low, high, inside in binned(rows):
        closing = "]" if high == 1.0 else ")"
        lines.append(
            f"| [{low:.2f}, {high:.2f}{closing} | {len(inside)} | "
            f"{sum(r[0] for r in inside) / len(inside):.3f} | "
            f"{sum(r[1] for r in inside) / len(inside):.3f} | "
            f"{sum(r[2] for r in inside) / len(inside):.3f} |"
        )
    return lines
