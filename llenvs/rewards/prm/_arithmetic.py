r"""``ArithmeticPRM``: a deterministic PRM that checks every equation of a step exactly.

It finds each ``a op b = c`` in a step (chains, thousands separators, decimals, ``+ - × ÷ * / ^``,
``\times``, ``\cdot``, ``\div``, ``\frac{}{}``, units between numbers and operators), evaluates
both sides with ``fractions.Fraction``, and scores the step 0.0 if any checked equation is wrong,
1.0 if every checked one is right, and ``NEUTRAL_SCORE`` (0.5) when it found nothing to check,
saying so in the notes (``"verdict": "no arithmetic"``). Each step is judged on its own text:
the question and the other steps are not needed. Pure regular expressions and exact fractions,
so it scores thousands of steps a second (``bench/prm.py``). See
``llenvs.rewards.arithmetic`` for what it will not check, and why: a hypothesis the
step tests (``check if 12 * 4 = 46``) claims nothing, a count of whole things is a floor
(``36/5 = 7 full pens``) and ``pages 3-5`` is a range, not a subtraction.

Example:
    >>> prm = ArithmeticPRM()
    >>> prm.score_steps("", ["6 legs × 5 = 30 legs", "30 + 12 = 41", "Then add them."])
    [1.0, 0.0, 0.5]
    >>> prm.score_steps("", ["Let's check if 12 * 4 = 46.", "36/5 = 7 full pens", "pages 3-5 = 3"])
    [0.5, 1.0, 0.5]

"""

from __future__ import annotations

from collections.abc import Sequence

from llenvs.rewards.arithmetic import ArithmeticVerdict, check_equations
from llenvs.rewards.prm._contract import NEUTRAL_SCORE
from llenvs.rewards.prm._step_judgement import StepJudgement

__all__ = ["ArithmeticPRM"]


class ArithmeticPRM:
    """Checks the arithmetic of each step exactly; neutral on steps without any.

    Arguments:
        neutral: the score of a step with no arithmetic to check (default ``NEUTRAL_SCORE``).

    Example:
        >>> [j] = ArithmeticPRM().judge_steps("", ["So 596 + 912 = 1408."])
        >>> j.score, j.notes["verdict"], j.notes["checked"]
        (0.0, 'wrong', ['596 + 912 = 1408'])

    """

    def __init__(self, *, neutral: float = NEUTRAL_SCORE) -> None:
        if isinstance(neutral, bool) or not isinstance(neutral, int | float):
            raise TypeError(f"neutral must be a number, got {neutral!r}")
        if not 0.0 <= neutral <= 1.0:
            raise ValueError(f"neutral must be in [0, 1], got {neutral}")
        self.neutral = float(neutral)

    def judge_step(self, step: str) -> StepJudgement:
        """The score of one step, with notes: the verdict, what was checked, what failed.

        Example:
            >>> ArithmeticPRM().judge_step("Step 2: let x = 2.").notes
            {'verdict': 'no arithmetic', 'checked': [], 'failed': []}

        """
        checks = check_equations(step)
        verdict = ArithmeticVerdict.of(checks)
        score = {
            ArithmeticVerdict.CORRECT: 1.0,
            ArithmeticVerdict.WRONG: 0.0,
            ArithmeticVerdict.NO_ARITHMETIC: self.neutral,
        }[verdict]
        notes = {
            "verdict": verdict.value,
            "checked": [c.text for c in checks],
            "failed": [c.as_dict() for c in checks if not c.correct],
        }
        return StepJudgement(score, notes)

    def judge_steps(self, question: str, steps: Sequence[str]) -> list[StepJudgement]:
        """``judge_step`` of every step (the question is not needed).

        Example:
            >>> [j.notes["verdict"] for j in ArithmeticPRM().judge_steps("", ["1 + 1 = 2", ""])]
            ['correct', 'no arithmetic']

        """
        return [self.judge_step(step) for step in steps]

    def score_steps(self, question: str, steps: Sequence[str]) -> list[float | None]:
        """One score per step: 1.0 right, 0.0 wrong, ``neutral`` with nothing to check.

        Example:
            >>> ArithmeticPRM(neutral=1.0).score_steps("", ["No numbers here."])
            [1.0]

        """
        return [self.judge_step(step).score for step in steps]

    def __repr__(self) -> str:
        return f"ArithmeticPRM(neutral={self.neutral})"
