"""Counts in words: "1 segment", "3 segments"; a success rate with its 95% interval.

Example:
    >>> count(1, "segment"), count(3, "segment"), count(2, "branch", "branches")
    ('1 segment', '3 segments', '2 branches')
    >>> success_rate(4, 8)
    '4/8 = 50% [21.5%, 78.5%]'

"""

from __future__ import annotations

from llenvs.analysis.interval import wilson_interval

__all__ = ["count", "success_rate"]


def count(number: int, one: str, many: str | None = None) -> str:
    """``number`` and the noun, singular for exactly one; ``many`` when not ``one + "s"``.

    Example:
        >>> count(0, "sample")
        '0 samples'

    """
    return f"{number} {one if number == 1 else many or one + 's'}"


def success_rate(wins: int, judged: int) -> str:
    """``wins`` of ``judged`` as a rate with its 95% Wilson interval; "no verdict" for none.

    Example:
        >>> success_rate(0, 0)
        'no verdict'

    """
    if judged <= 0:
        return "no verdict"
    interval = wilson_interval(wins, judged)
    return f"{wins}/{judged} = {wins / judged:.0%} [{interval.low:.1%}, {interval.high:.1%}]"
