"""``SegmenterValues``: one segmenter's step values of a trace, on its characters.

What ``llenvs.analysis.instruments`` stores of each cut it analysed (the analysis
sidecar's ``"segmenters"`` lines): the character offset of every boundary and the value before
it, so importances, the largest move and the importance of each character are read back
without sampling again.

Example:
    >>> SegmenterValues("sentence", (0, 3, 7), (0.2, 0.9, None)).largest()
    (0, 3)

"""

from __future__ import annotations

import math
from dataclasses import dataclass

from llenvs.core import RECORD, Count, Number, Text

__all__ = ["SegmenterValues"]


@dataclass(frozen=True)
class SegmenterValues:
    """One segmenter's step values of a trace, on the characters of its response.

    Example:
        >>> v = SegmenterValues("line", (0, 4, 9), (0.5, None, 1.0))
        >>> from llenvs.core import read_record, record_dict
        >>> v.importances(), read_record(SegmenterValues, record_dict(v)) == v
        ([None, None], True)

    """

    __pydantic_config__ = RECORD

    spec: Text
    """The segmenter."""
    cuts: tuple[Count, ...]
    """Each boundary's character offset: 0, then the end of every segment."""
    values: tuple[Number | None, ...]
    """The value before each boundary (``v_i``; None: not sampled), one per cut."""
    rollouts: Count = 0
    """Rollouts counted."""
    tokens: Count = 0
    """Tokens they generated."""

    def __post_init__(self) -> None:
        if len(self.cuts) != len(self.values) or list(self.cuts) != sorted(self.cuts):
            raise ValueError("one value per cut, cuts in order")

    def importances(self) -> list[float | None]:
        """``v_{i+1} - v_i`` of each step (None where either is unknown)."""
        pairs = zip(self.values, self.values[1:], strict=False)
        return [None if a is None or b is None else b - a for a, b in pairs]

    def largest_step(self) -> int | None:
        """The step whose value moved most (the first of equals), or None (nothing known)."""
        known = [(abs(m), i) for i, m in enumerate(self.importances()) if m is not None]
        if not known:
            return None
        _, step = max(known, key=lambda item: (item[0], -item[1]))
        return step

    def largest(self) -> tuple[int, int] | None:
        """The character span of ``largest_step``, or None (nothing known)."""
        step = self.largest_step()
        return None if step is None else (self.cuts[step], self.cuts[step + 1])

    def on_characters(self, length: int) -> list[float]:
        """The importance of the step each of ``length`` characters lies in (NaN: unknown)."""
        out = [math.nan] * length
        for step, move in enumerate(self.importances()):
            if move is not None:
                for char in range(self.cuts[step], min(self.cuts[step + 1], length)):
                    out[char] = move
        return out
