r"""How a step frames an equation: a hypothesis it tests, or a count of whole things (a floor).

Two readings that keep the checker from calling right reasoning wrong (each has a test on a real
response):

- a **hypothesis** is an equation the step tests rather than claims: right after a cue
  (``check if 12 * 4 = 46``, ``suppose``, ``whether``), asked as a question (``is 12 * 4 = 46?``),
  or, in a step that says it verifies or checks something, corrected later in the same step
  (``we get 0 + (15 - 1) * 71 = 999, which simplifies to 14 * 71 = 994``);
- a **whole count** is a division whose right side is its floor, with the words saying so
  (``36/5 = 7 full pens``, ``25 / 4 = 6 remainder 1``).

Example:
    >>> hypothesis_cue("let's check if"), hypothesis_cue("so the total is")
    (True, False)
    >>> whole_count(" full pens (with a remainder of 1)"), whole_count(" pens")
    (True, False)

"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from llenvs.rewards.arithmetic._equation_check import EquationCheck

__all__ = ["HYPOTHESIS_CUES", "hypothesis_cue", "tested_and_corrected", "whole_count"]

HYPOTHESIS_CUES = frozenset(
    "if whether suppose supposing assume assuming check checking test testing verify "
    "verifying".split()
)
"""Words that, right before an equation, make it a hypothesis (``see if 12 * 4 = 46``)."""

_VERIFYING = re.compile(r"\b(?:verify|verifying|check|checking|test|testing|whether)\b", re.I)
"""A step that says it tests something (the third kind of hypothesis)."""

_WHOLE_WORDS = re.compile(r"^(?:\s|\$|\*\*|\\\)|\\\]|\})*(?:full|whole|complete|entire)\b", re.I)
"""A count of whole things right after the number (``= 7 full pens``, ``= 7 $ full pens``)."""

_REMAINDER = re.compile(r"\bremainder\b|\bround(?:ed|ing)? down\b|\bleft ?over\b", re.I)
"""Words that say the division was whole (``6 remainder 1``, ``rounded down``)."""


def hypothesis_cue(prose: str) -> bool:
    """Whether prose that ends right before an equation makes it a hypothesis.

    Example:
        >>> hypothesis_cue("Suppose"), hypothesis_cue("if we add")
        (True, False)

    """
    words = prose.lower().split()
    return bool(words) and words[-1] in HYPOTHESIS_CUES


def whole_count(after: str) -> bool:
    """Whether the text right after a division's whole-number result says it counts whole things.

    Example:
        >>> whole_count(" remainder 1"), whole_count(" complete boxes"), whole_count(" hours")
        (True, True, False)

    """
    return bool(_WHOLE_WORDS.match(after) or _REMAINDER.search(after))


def tested_and_corrected(text: str, checks: Sequence[EquationCheck]) -> list[EquationCheck]:
    """``checks`` with a wrong one marked a hypothesis when the step tests it and corrects it.

    That is: ``text`` says it verifies, checks or tests something, and a later check in it is
    right and has the same left value (the step worked the left side out and found the truth).

    Example:
        >>> from fractions import Fraction as F
        >>> text = "To verify: 14 × 71 = 999? No: 14 × 71 = 994."
        >>> wrong = EquationCheck("14 × 71 = 999", 11, 24, F(994), F(999), False)
        >>> right = EquationCheck("14 × 71 = 994", 30, 43, F(994), F(994), True)
        >>> [c.hypothesis for c in tested_and_corrected(text, [wrong, right])]
        [True, False]

    """
    if not _VERIFYING.search(text):
        return list(checks)
    marked: list[EquationCheck] = []
    for check in checks:
        corrected = not check.correct and any(
            later.correct and later.start >= check.end and later.left == check.left
            for later in checks
        )
        marked.append(replace(check, hypothesis=True) if corrected else check)
    return marked
