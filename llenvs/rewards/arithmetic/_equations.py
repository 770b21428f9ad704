r"""Find every checkable equation in a step and check it exactly.

An equation is ``left = right`` where both sides are arithmetic on numbers; chains
(``2 + 3 + 4 = 9``, ``a = b = c``) give one equation per ``=``. The rules that keep the checker
from being fooled (each has a test):

- a side is the longest arithmetic around its ``=``: ``so 5 chickens have 5 * 2 = 10 legs``
  checks ``5 * 2 = 10``; words after a number are its unit (``6 legs × 5 = 30 legs``);
- a side touching a variable, a function, an unknown LaTeX command, a factorial or a dangling
  operator is not checked (``2x + 3 = 7``, ``\sqrt{16} = 4``, ``f(2) = 5``, ``… + 10 = 55``);
- a lone quantity that opens a chain is a description, not a claim: ``3 flatworms = 3 * 0 = 0``
  checks only ``3 * 0 = 0``, and ``half of 10 = 5`` nothing; two lone quantities with different
  units are a conversion (``120 minutes = 2 hours``), not checked;
- a side written as a decimal agrees within its last digit (``10/3 = 3.33``); a lone percentage
  is ``/100`` or a count of percent (``50% × 20 = 10``, ``0.6 × 100 = 60%``); otherwise exact;
  ``%`` added to a plain number (``20 + 10% = 22``) is ambiguous and not checked;
- a whole count is the floor (``36/5 = 7 full pens``), and a hypothesis the step tests
  (``check if 12 * 4 = 46``) is not a claim: see ``llenvs.rewards.arithmetic``.

Example:
    >>> [(c.text, c.correct) for c in check_equations("So 2 × 4 = 8, and 8 + 5 = 12.")]
    [('2 × 4 = 8', True), ('8 + 5 = 12', False)]

"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from llenvs.rewards.arithmetic._equation_check import EquationCheck
from llenvs.rewards.arithmetic._expression import Expression, parse_expression
from llenvs.rewards.arithmetic._framing import hypothesis_cue, tested_and_corrected, whole_count
from llenvs.rewards.arithmetic._tokens import Token, TokenKind, tokenize

__all__ = ["check_equations"]

MAX_SIDE_TOKENS = 400
"""How far back from an ``=`` the checker looks for the start of the left side."""

_STARTERS = frozenset(
    {TokenKind.NUM, TokenKind.SIGN, TokenKind.LPAREN, TokenKind.LBRACE, TokenKind.FRAC}
)
_OPENERS = frozenset({TokenKind.LPAREN, TokenKind.LBRACE})
_CLOSERS = frozenset({TokenKind.RPAREN, TokenKind.RBRACE})
_BULLETS = frozenset({"-", "×"})
_MAYBE_EQUATION = re.compile(r"[\d²³].*=.*\d")
"""A line can hold a checkable equation only with a digit before an ``=`` and one after it."""


@dataclass(frozen=True, slots=True)
class _Term:
    lo: int
    hi: int
    after_eq: bool
    line_start: bool


def check_equations(text: str) -> list[EquationCheck]:
    r"""Every checkable equation of ``text``, in order, with its verdict.

    Example:
        >>> [c.correct for c in check_equations(r"$\frac{1}{2} + 0.25 = 75\%$")]
        [True]
        >>> check_equations("Step 2: let x = 2, on 2024-05-01.")
        []

    """
    checks: list[EquationCheck] = []
    offset = 0
    for line in text.split("\n"):  # a newline is a break: no equation spans one
        if "=" in line and _MAYBE_EQUATION.search(line):
            checks.extend(_line_checks(text, offset, line, tokenize(line)))
        offset += len(line) + 1
    return tested_and_corrected(text, checks)


def _line_checks(text: str, offset: int, line: str, tokens: Sequence[Token]) -> list[EquationCheck]:
    """The checks of one line's tokens; positions are shifted to ``text``'s."""
    terms, links = _terms(tokens)
    checks: list[EquationCheck] = []
    for i, linked in enumerate(links):
        if not linked:
            continue
        left = _left_side(tokens, terms[i])
        right = _right_side(tokens, terms[i + 1])
        if left is None or right is None or left.value is None or right.value is None:
            continue
        term = terms[i]
        continuing = term.after_eq and left.start == term.lo
        if left.bare and not continuing:
            continue
        if left.bare and right.bare and _unit(left.units) != _unit(right.units):
            continue
        start = offset + tokens[left.start].start
        end = offset + _shown_end(line, tokens, right)
        correct = _agree(left, right) or _floor(line, tokens, left, right)
        hypothesis = _hypothesis(tokens, term, left, right)
        checks.append(
            EquationCheck(text[start:end], start, end, left.value, right.value, correct, hypothesis)
        )
    return checks


def _hypothesis(tokens: Sequence[Token], term: _Term, left: Expression, right: Expression) -> bool:
    """Tested, not claimed: right after a cue (``check if``), or asked (``= 46?``)."""
    i = left.start - 1
    while i >= term.lo and tokens[i].kind in _OPENERS:
        i -= 1
    if i >= term.lo and tokens[i].kind is TokenKind.WORD and hypothesis_cue(tokens[i].text):
        return True
    after = tokens[right.end] if right.end < len(tokens) else None
    return after is not None and after.kind is TokenKind.BREAK and after.text == "?"


def _floor(line: str, tokens: Sequence[Token], left: Expression, right: Expression) -> bool:
    """A count of whole things: ``right`` is the floor of a positive ``left``, and says so.

    The words after it say so: ``36/5 = 7 full pens``, ``25 / 4 = 6 remainder 1``.
    """
    if not right.bare or left.value is None or right.value is None:
        return False
    if right.value.denominator != 1 or left.value.denominator == 1 or left.value < 0:
        return False
    if left.value.numerator // left.value.denominator != right.value:
        return False
    numbers = [t for t in tokens[right.start : right.end] if t.kind is TokenKind.NUM]
    return bool(numbers) and whole_count(line[numbers[-1].end :])


def _terms(tokens: Sequence[Token]) -> tuple[list[_Term], list[bool]]:
    """Cut the tokens at every ``=`` and break; ``links[i]``: terms i and i+1 meet at an ``=``."""
    terms: list[_Term] = []
    links: list[bool] = []
    lo, after_eq, line_start = 0, False, True
    for i, token in enumerate(tokens):
        if token.kind is TokenKind.EQ or token.kind is TokenKind.BREAK:
            terms.append(_Term(lo, i, after_eq, line_start))
            links.append(token.kind is TokenKind.EQ)
            lo, after_eq, line_start = i + 1, token.kind is TokenKind.EQ, token.line_start
    terms.append(_Term(lo, len(tokens), after_eq, line_start))
    return terms, links


def _left_side(tokens: Sequence[Token], term: _Term) -> Expression | None:
    """The expression that ends the term, if it starts cleanly (after prose, not mid-formula)."""
    pos = max(term.lo, term.hi - MAX_SIDE_TOKENS)
    while pos < term.hi:
        if tokens[pos].kind in _STARTERS:
            found = parse_expression(tokens, pos, term.hi)
            if found is not None:
                if found.end == term.hi:
                    return found if _clean_start(tokens, term, pos) else None
                pos = max(pos + 1, found.end)
                continue
        pos += 1
    return None


def _right_side(tokens: Sequence[Token], term: _Term) -> Expression | None:
    """The expression that opens the term, if it ends cleanly (before prose, not mid-formula)."""
    if term.lo >= term.hi or tokens[term.lo].kind not in _STARTERS:
        return None
    found = parse_expression(tokens, term.lo, term.hi)
    if found is None or not _clean_end(tokens, found.end, term.hi):
        return None
    return found


def _clean_start(tokens: Sequence[Token], term: _Term, pos: int) -> bool:
    i = pos - 1
    while i >= term.lo and tokens[i].kind in _OPENERS:
        i -= 1
    if i < term.lo:
        return True
    before = tokens[i]
    if before.kind is TokenKind.WORD:
        return not before.prefix_poison
    bullet = before.kind is TokenKind.OP and before.text in _BULLETS
    return bullet and i == term.lo and term.line_start


def _clean_end(tokens: Sequence[Token], end: int, hi: int) -> bool:
    if end >= hi:
        return True
    after = tokens[end]
    if after.kind is TokenKind.WORD or after.kind in _CLOSERS:
        return True
    if tokens[end - 1].kind is TokenKind.WORD and after.kind in _STARTERS:
        return True  # prose after a unit: "= 10 legs and 5 more"
    return (
        after.kind is TokenKind.LPAREN and end + 1 < hi and tokens[end + 1].kind is TokenKind.WORD
    )


def _shown_end(line: str, tokens: Sequence[Token], right: Expression) -> int:
    """Where the right side ends as shown: after its first unit word at most (not the prose)."""
    core = right.end
    while core > right.start + 1 and tokens[core - 1].kind is TokenKind.WORD:
        core -= 1
    if core == right.end:
        return tokens[core - 1].end
    unit = tokens[core]
    written = line[unit.start : unit.end]
    if written.startswith("\\"):
        return unit.end
    return unit.start + len(written.split(" ")[0])


def _unit(units: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(u.removesuffix("s") for u in units)


def _agree(left: Expression, right: Expression) -> bool:
    """Equal, or within the last written digit of a decimal side.

    A lone percentage may also be read as a number of percent (``0.6 × 100 = 60%``).
    """
    for a, a_places in _readings(left):
        for b, b_places in _readings(right):
            places = [p for p in (a_places, b_places) if p > 0]
            if a == b or (places and abs(a - b) < Fraction(1, 10 ** min(places))):
                return True
    return False


def _readings(side: Expression) -> list[tuple[Fraction, int]]:
    """The side's value and the decimal places it is written to (0: exact)."""
    assert side.value is not None
    if not side.bare:
        return [(side.value, 0)]
    readings = [(side.value, side.decimals)]
    if side.percent:
        readings.append((side.value * 100, side.decimals - 2))
    return readings
