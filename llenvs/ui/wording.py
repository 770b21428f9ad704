"""Counts in words: "1 segment", "3 segments", "1 branch", "2 branches".

Example:
    >>> count(1, "segment"), count(3, "segment"), count(2, "branch", "branches")
    ('1 segment', '3 segments', '2 branches')

"""

from __future__ import annotations

__all__ = ["count"]


def count(number: int, one: str, many: str | None = None) -> str:
    """``number`` and the noun, singular for exactly one; ``many`` when not ``one + "s"``.

    Example:
        >>> count(0, "sample")
        '0 samples'

    """
    return f"{number} {one if number == 1 else many or one + 's'}"
