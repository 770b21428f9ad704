r"""What two segmenters' step values say together, and whether the rollouts can tell.

For each pair of segmenters (``SegmenterPair``): where their largest moves fall (the same text,
overlapping text, the two sides of one ``Spike``, or apart), how wide each is, Kendall's τ-b of
their importances mapped onto characters (each character carries the importance of the step it
lies in), and whether the rollouts can tell: when the intervals of the values either side of a
largest move overlap (``MoveCertainty``), too few rollouts were made to tell that move from no
move, and the pair's summary says so first.

Example:
    >>> a = SegmenterValues("sentence", (0, 3, 7, 9), (0.2, 0.2, 0.9, 0.9))
    >>> b = SegmenterValues("line:\\n\\n", (0, 7, 9), (0.2, 0.9, 0.9))
    >>> a.largest(), b.largest()
    ((3, 7), (0, 7))
    >>> pair = SegmenterPair.of(a, b)
    >>> pair.same_span, round(pair.tau, 2)
    (True, 0.48)
    >>> print(pair.where())
    their largest moves overlap at characters 3–7 (sentence 3–7, line:\n\n 0–7: 4 against 7 ...

"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from llenvs.analysis.sidecar import SegmenterValues
from llenvs.analysis.statistics import BoundaryValue, Interval

__all__ = ["CutIntervals", "MoveCertainty", "SegmenterPair", "Spike"]


CutIntervals = tuple[BoundaryValue | None, ...]
"""One cut's value at each of its boundaries with its interval and rollouts (None: unknown)."""


@dataclass(frozen=True)
class MoveCertainty:
    """Whether one cut's rollouts tell its largest move from no move.

    Example:
        >>> MoveCertainty(False, (4, 6)).told, MoveCertainty.UNKNOWN.per_boundary
        (False, None)

    """

    told: bool | None
    """True when the 95% intervals of the values either side of the largest move are apart;
    False when they overlap (too few rollouts to tell); None: unknown (no largest move, or the
    rollouts behind it are not stored)."""
    per_boundary: tuple[int, int] | None
    """The fewest and the most rollouts counted at one sampled boundary (None: unknown)."""

    UNKNOWN: ClassVar[MoveCertainty]
    """Nothing known about the rollouts."""

    @property
    def spread(self) -> str:
        """The rollouts per boundary for people: ``4``, ``4–6``, or ``?`` (unknown).

        Example:
            >>> MoveCertainty(None, (4, 6)).spread, MoveCertainty(None, (5, 5)).spread
            ('4–6', '5')

        """
        if self.per_boundary is None:
            return "?"
        fewest, most = self.per_boundary
        return str(fewest) if fewest == most else f"{fewest}–{most}"

    @classmethod
    def of(cls, values: SegmenterValues, intervals: CutIntervals) -> MoveCertainty:
        """The certainty of ``values``' largest move from each cut's ``intervals``."""
        sampled = [b.trials for b in intervals if b is not None and not b.exact]
        counts = (min(sampled), max(sampled)) if sampled else None
        step = values.largest_step()
        if step is None or len(intervals) != len(values.cuts):
            return cls(None, counts)
        before, after = intervals[step], intervals[step + 1]
        if before is None or after is None:
            return cls(None, counts)
        apart = _apart(before.interval, after.interval)
        return cls(apart, counts)


MoveCertainty.UNKNOWN = MoveCertainty(None, None)


def _apart(a: Interval, b: Interval) -> bool:
    return a.high < b.low or b.high < a.low


@dataclass(frozen=True)
class Spike:
    """A character where a cut's value stands above (a peak) or below (a dip) both neighbours."""

    character: int
    """The boundary's character offset."""
    peak: bool
    """True: above both neighbours; False: below both."""

    @property
    def name(self) -> str:
        """``"peak"`` or ``"dip"``."""
        return "peak" if self.peak else "dip"


def _spikes(values: SegmenterValues) -> set[Spike]:
    """The spikes at either end of ``values``' largest move (the move is one of its sides)."""
    step = values.largest_step()
    if step is None:
        return set()
    found = set()
    for boundary in (step, step + 1):
        if not 0 < boundary < len(values.cuts) - 1:
            continue
        here, left, right = (values.values[boundary + d] for d in (0, -1, 1))
        if here is None or left is None or right is None:
            continue
        if here > left and here > right:
            found.add(Spike(values.cuts[boundary], True))
        elif here < left and here < right:
            found.add(Spike(values.cuts[boundary], False))
    return found


@dataclass(frozen=True)
class SegmenterPair:
    """What two segmenters' values say together."""

    first: str
    """One segmenter."""
    second: str
    """The other."""
    same_span: bool | None
    """Whether their largest moves' spans of text overlap (None: either has none)."""
    widths: tuple[int | None, int | None]
    """Each largest move's width in characters (a wider one blurs where the move is)."""
    tau: float | None
    """Kendall's τ-b of their importances on the characters both know (None: too few)."""
    spans: tuple[tuple[int, int] | None, tuple[int, int] | None] = (None, None)
    """Each largest move's span of characters (None: none known)."""
    spike: Spike | None = None
    """A peak or dip both cuts' values have at an end of each one's largest move: their
    largest moves are sides of the same spike, whether or not their spans overlap."""
    certainty: tuple[MoveCertainty, MoveCertainty] = (MoveCertainty.UNKNOWN, MoveCertainty.UNKNOWN)
    """Whether each one's rollouts tell its largest move from no move."""

    @classmethod
    def of(
        cls,
        first: SegmenterValues,
        second: SegmenterValues,
        certainty: tuple[MoveCertainty, MoveCertainty] | None = None,
    ) -> SegmenterPair:
        """The pair's report (see the class); ``certainty`` unknown unless given."""
        a, b = first.largest(), second.largest()
        same = None if a is None or b is None else a[0] < b[1] and b[0] < a[1]
        length = max(first.cuts[-1] if first.cuts else 0, second.cuts[-1] if second.cuts else 0)
        x, y = first.on_characters(length), second.on_characters(length)
        both = [(p, q) for p, q in zip(x, y, strict=True) if not (math.isnan(p) or math.isnan(q))]
        tau = _kendall([p for p, _ in both], [q for _, q in both]) if len(both) > 1 else None
        width = (None if a is None else a[1] - a[0], None if b is None else b[1] - b[0])
        shared = sorted(_spikes(first) & _spikes(second), key=lambda s: s.character)
        spike = shared[0] if shared else None
        known = certainty or (MoveCertainty.UNKNOWN, MoveCertainty.UNKNOWN)
        return cls(first.spec, second.spec, same, width, tau, (a, b), spike, known)

    @property
    def too_few(self) -> bool:
        """Whether either one's rollouts are too few to tell its largest move from no move."""
        return any(c.told is False for c in self.certainty)

    def where(self) -> str:
        """Where their largest moves fall, as the estimates say (intervals aside)."""
        a, b = self.spans
        if self.same_span is None or a is None or b is None:
            return "a largest move is unknown"
        if a == b:
            return f"their largest moves fall on the same text (characters {a[0]}–{a[1]})"
        spans = f"{self.first} {a[0]}–{a[1]}, {self.second} {b[0]}–{b[1]}"
        if self.same_span:
            both = f"{max(a[0], b[0])}–{min(a[1], b[1])}"
            wide = f"{a[1] - a[0]} against {b[1] - b[0]} characters wide"
            return f"their largest moves overlap at characters {both} ({spans}: {wide})"
        if self.spike is not None:
            return (
                f"the same {self.spike.name} at character {self.spike.character}, their "
                f"largest moves its two sides ({spans})"
            )
        return f"their largest moves fall in different spans of text ({spans})"

    def summary(self) -> str:
        """One line for people: too few rollouts to tell first, where the moves fall, τ."""
        tau = "τ unknown" if self.tau is None else f"Kendall τ {self.tau:+.2f} on characters"
        head = f"{self.first} vs {self.second}: "
        if not self.too_few:
            return f"{head}{self.where()}; {tau}"
        unsure = [
            name
            for name, c in zip((self.first, self.second), self.certainty, strict=True)
            if c.told is False
        ]
        whose = (
            "each one's largest move" if len(unsure) == 2 else f"the largest move of {unsure[0]}"
        )
        counts = [c.per_boundary for c in self.certainty if c.per_boundary is not None]
        per = MoveCertainty(None, (min(c[0] for c in counts), max(c[1] for c in counts))).spread
        return (
            f"{head}too few rollouts to tell, {per} per boundary: the 95% intervals either side "
            f"of {whose} overlap. As estimated: {self.where()}; {tau}"
        )


def _kendall(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's τ-b (scipy), None where it is undefined (a constant side)."""
    from scipy.stats import kendalltau

    result = kendalltau(x, y)
    tau = float(result.statistic)
    return None if math.isnan(tau) else tau
