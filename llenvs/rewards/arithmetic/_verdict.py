"""The arithmetic checker's verdict on a whole step.

Example:
    >>> ArithmeticVerdict.of([]).value
    'no arithmetic'

"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from llenvs.rewards.arithmetic._equation_check import EquationCheck

__all__ = ["ArithmeticVerdict"]


class ArithmeticVerdict(Enum):
    """What the checker found in a step.

    Example:
        >>> from fractions import Fraction
        >>> ArithmeticVerdict.of([EquationCheck("1 = 2", 0, 5, Fraction(1), Fraction(2), False)])
        <ArithmeticVerdict.WRONG: 'wrong'>

    """

    CORRECT = "correct"
    """Every equation it could check is right."""
    WRONG = "wrong"
    """At least one equation it checked is wrong (a wrong hypothesis the step tests is not)."""
    NO_ARITHMETIC = "no arithmetic"
    """Nothing it could check: no equation between numbers (or only wrong hypotheses the step
    tests, which claim nothing)."""

    @classmethod
    def of(cls, checks: Sequence[EquationCheck]) -> ArithmeticVerdict:
        """The verdict on a step whose equations got these checks.

        Example:
            >>> from fractions import Fraction
            >>> ArithmeticVerdict.of([EquationCheck("2 = 2", 0, 5, Fraction(2), Fraction(2), True)])
            <ArithmeticVerdict.CORRECT: 'correct'>
            >>> ArithmeticVerdict.of([EquationCheck("1 = 2", 0, 5, Fraction(1), Fraction(2), False,
            ...                                     hypothesis=True)]).value
            'no arithmetic'

        """
        claims = [c for c in checks if c.correct or not c.hypothesis]
        if not claims:
            return cls.NO_ARITHMETIC
        return cls.CORRECT if all(c.correct for c in claims) else cls.WRONG
