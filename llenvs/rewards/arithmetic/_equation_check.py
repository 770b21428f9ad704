"""The verdict on one equation the arithmetic checker found in a step.

Example:
    >>> from fractions import Fraction
    >>> check = EquationCheck("2 + 2 = 5", 0, 9, Fraction(4), Fraction(5), False)
    >>> check.correct, check.as_dict()["left"]
    (False, '4')

"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

__all__ = ["EquationCheck", "format_value"]


@dataclass(frozen=True)
class EquationCheck:
    """One equation (``left = right``) as written in a step, and both sides' exact values.

    Example:
        >>> from fractions import Fraction
        >>> EquationCheck("1/3 = 0.33", 0, 10, Fraction(1, 3), Fraction(33, 100), True).correct
        True

    """

    text: str
    """The equation as written, from the left side's first character to the right side's last."""
    start: int
    """Where it starts in the step's text."""
    end: int
    """Where it ends in the step's text."""
    left: Fraction
    """The exact value of the left side."""
    right: Fraction
    """The exact value of the right side."""
    correct: bool
    """Whether the sides agree (a side written as a rounded decimal agrees within its last
    digit: ``1/3 = 0.33``; a whole count, the floor: ``36/5 = 7 full pens``)."""
    hypothesis: bool = False
    """True when the step tests the equation rather than claims it (``check if 12 * 4 = 46``):
    a wrong hypothesis is not a wrong step."""

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready record: the equation, both values, the verdict (and ``hypothesis``).

        Example:
            >>> from fractions import Fraction
            >>> EquationCheck("6 × 5 = 30", 0, 10, Fraction(30), Fraction(30), True).as_dict()
            {'equation': '6 × 5 = 30', 'left': '30', 'right': '30', 'correct': True}

        """
        record: dict[str, Any] = {
            "equation": self.text,
            "left": format_value(self.left),
            "right": format_value(self.right),
            "correct": self.correct,
        }
        if self.hypothesis:
            record["hypothesis"] = True
        return record


def format_value(value: Fraction) -> str:
    """An exact value as text: an integer, or a finite decimal, or ``p/q``.

    Example:
        >>> from fractions import Fraction
        >>> format_value(Fraction(5968)), format_value(Fraction(5, 2)), format_value(Fraction(1, 3))
        ('5968', '2.5', '1/3')
        >>> format_value(Fraction(2**100))
        '126765060022822940149670…(31 digits)'


    """
    if value.denominator == 1:
        return _shortened(str(value.numerator))
    denominator = value.denominator
    twos = fives = 0
    while denominator % 2 == 0:
        denominator //= 2
        twos += 1
    while denominator % 5 == 0:
        denominator //= 5
        fives += 1
    if denominator != 1 or max(twos, fives) > 12:
        return f"{_shortened(str(value.numerator))}/{_shortened(str(value.denominator))}"
    places = max(twos, fives)
    scaled = value * 10**places
    sign = "-" if scaled < 0 else ""
    digits = str(abs(scaled.numerator)).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}".rstrip("0").rstrip(".")


def _shortened(digits: str, keep: int = 24) -> str:
    """A huge integer as its first digits and its length: ``1828…(609 digits)``."""
    if len(digits.lstrip("-")) <= keep:
        return digits
    return f"{digits[:keep]}…({len(digits.lstrip('-'))} digits)"
