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
from typing import Any

from llenvs.traces.records import RecordReader

__all__ = ["SegmenterValues"]


@dataclass(frozen=True)
class SegmenterValues:
    """One segmenter's step values of a trace, on the characters of its response.

    Example:
        >>> v = SegmenterValues("line", (0, 4, 9), (0.5, None, 1.0))
        >>> v.importances(), SegmenterValues.from_dict(v.to_dict()) == v
        ([None, None], True)

    """

    spec: str
    """The segmenter."""
    cuts: tuple[int, ...]
    """Each boundary's character offset: 0, then the end of every segment."""
    values: tuple[float | None, ...]
    """The value before each boundary (``v_i``; None: not sampled), one per cut."""
    rollouts: int = 0
    """Rollouts counted."""
    tokens: int = 0
    """Tokens they generated."""

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

    def to_dict(self) -> dict[str, Any]:
        """Its JSON object."""
        return {
            "spec": self.spec,
            "cuts": list(self.cuts),
            "values": list(self.values),
            "rollouts": self.rollouts,
            "tokens": self.tokens,
        }

    @classmethod
    def from_dict(cls, data: object, where: str = "segmenter") -> SegmenterValues:
        """The values of a JSON object; a ``TraceFormatError`` naming the field otherwise."""
        reader = RecordReader(data, where)
        cuts = reader.opt_ints("cuts") or ()
        values = tuple(None if v is None else float(v) for v in _numbers_or_null(reader, "values"))
        found = cls(
            reader.text("spec"), cuts, values, reader.integer("rollouts"), reader.integer("tokens")
        )
        reader.done()
        if len(found.cuts) != len(found.values) or list(found.cuts) != sorted(found.cuts):
            raise ValueError(f"{where}: one value per cut, cuts in order")
        return found


def _numbers_or_null(reader: RecordReader, key: str) -> list[float | None]:
    values = reader.array(key)
    if any(
        v is not None and (isinstance(v, bool) or not isinstance(v, int | float)) for v in values
    ):
        raise ValueError(f"{reader.path(key)}: expected numbers or nulls")
    return values
