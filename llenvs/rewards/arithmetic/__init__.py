"""The machinery of the exact arithmetic checker: tokens, expressions, equations, verdicts.

``ArithmeticPRM`` (in ``llenvs.rewards``) is its public face; ``check_equations`` is the whole
checker on one text.

Example:
    >>> [(c.text, c.correct) for c in check_equations("149 * 4 = 596, 1440 + 1044 = 2480")]
    [('149 * 4 = 596', True), ('1440 + 1044 = 2480', False)]

"""

from llenvs.rewards.arithmetic._equation_check import EquationCheck, format_value
from llenvs.rewards.arithmetic._equations import check_equations
from llenvs.rewards.arithmetic._expression import parse_expression
from llenvs.rewards.arithmetic._tokens import TokenKind, tokenize
from llenvs.rewards.arithmetic._verdict import ArithmeticVerdict

__all__ = [
    "ArithmeticVerdict",
    "EquationCheck",
    "TokenKind",
    "check_equations",
    "format_value",
    "parse_expression",
    "tokenize",
]
