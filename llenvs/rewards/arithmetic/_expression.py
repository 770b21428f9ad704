r"""Exact evaluation of one arithmetic expression among the checker's tokens.

``parse_expression(tokens, lo, hi)`` reads the longest expression that starts at ``tokens[lo]``
and evaluates it with ``fractions.Fraction``: ``+ -`` below ``× ÷ /`` and implicit products
(``2(3)``, ``(1)(-2)``, ``\frac{13}{4} \left(\frac{1}{2}\right)``) below a sign below ``^``
(right-associative, so ``-2^2 = -4`` and ``2^3^2 = 2^9``). Words right after a number are its
unit (``6 legs × 5``); a unit stops a ``^`` (``5 cm^2`` is not ``5^2``). A value it cannot compute
exactly (division by zero, a fractional or huge power, a percentage added to a plain number) is
``None`` with the reason; the expression still has its extent.

Example:
    >>> from llenvs.rewards.arithmetic._tokens import tokenize
    >>> tokens = tokenize("2 + 3 × 4^2")
    >>> parse_expression(tokens, 0, len(tokens)).value
    Fraction(50, 1)

"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from llenvs.rewards.arithmetic._tokens import Token, TokenKind

__all__ = ["Expression", "parse_expression"]

MAX_POWER_BITS = 100_000
"""The largest power the checker computes, in bits of the result (``10^{1000}`` is fine)."""
MAX_DEPTH = 100
"""The deepest nesting of brackets the checker follows."""


@dataclass(frozen=True)
class Expression:
    """An expression found among tokens, with its exact value.

    Example:
        >>> from llenvs.rewards.arithmetic._tokens import tokenize
        >>> e = parse_expression(tokenize("30 legs"), 0, 2)
        >>> e.value, e.bare, e.units
        (Fraction(30, 1), True, ('legs',))

    """

    start: int
    """Index of its first token."""
    end: int
    """Index just after its last token."""
    value: Fraction | None
    """Its exact value, or None when it cannot be computed exactly."""
    reason: str
    """Why ``value`` is None ("" otherwise)."""
    bare: bool
    """True for a single number (a literal, maybe signed, maybe with a unit): no operation."""
    units: tuple[str, ...]
    """The unit words of a bare number (lower-cased)."""
    decimals: int
    """Digits after the decimal point of a bare number (how precisely it is written)."""
    percent: bool
    """True for a bare percentage (``60%``)."""


@dataclass(frozen=True, slots=True)
class _Value:
    q: Fraction | None
    percent: bool = False
    reason: str = ""


def parse_expression(tokens: Sequence[Token], lo: int, hi: int) -> Expression | None:
    r"""The longest expression starting at ``tokens[lo]`` and ending by ``hi``, or None.

    Example:
        >>> from llenvs.rewards.arithmetic._tokens import tokenize
        >>> tokens = tokenize(r"\frac{2 \times 2}{256} = 9")
        >>> e = parse_expression(tokens, 0, len(tokens))
        >>> e.value, tokens[e.end].text
        (Fraction(1, 64), '=')

    """
    parser = _Parser(tokens, hi)
    try:
        result = parser.expr(lo)
    except _TooDeep:
        return None
    if result is None:
        return None
    value, end = result
    bare, units, decimals = _bare(tokens, lo, end)
    percent = bare and any(t.percent for t in tokens[lo:end])
    return Expression(lo, end, value.q, value.reason, bare, units, decimals, percent)


class _TooDeep(Exception):
    pass


_Result = tuple[_Value, int] | None
_ADDITIVE = frozenset("+-")
_MULTIPLICATIVE = frozenset("×÷/")
_OPEN_CLOSE = {TokenKind.LPAREN: TokenKind.RPAREN, TokenKind.LBRACE: TokenKind.RBRACE}
_CLOSERS = frozenset({TokenKind.RPAREN, TokenKind.RBRACE})
_UNIT_KINDS = frozenset({TokenKind.WORD, TokenKind.LPAREN, TokenKind.RPAREN})


class _Parser:
    """Recursive descent with backtracking at each operator: it never consumes what it can't use."""

    def __init__(self, tokens: Sequence[Token], hi: int) -> None:
        self.tokens = tokens
        self.hi = hi
        self.depth = 0

    def at(self, pos: int) -> Token | None:
        return self.tokens[pos] if pos < self.hi else None

    def expr(self, pos: int) -> _Result:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _TooDeep
        try:
            result = self.term(pos)
            if result is None:
                return None
            value, pos = result
            while (op := self.at(pos)) is not None and op.kind is TokenKind.OP:
                if op.text not in _ADDITIVE or (right := self.term(pos + 1)) is None:
                    break
                value, pos = _combine(value, op.text, right[0]), right[1]
            return value, pos
        finally:
            self.depth -= 1

    def term(self, pos: int) -> _Result:
        result = self.unary(pos)
        if result is None:
            return None
        value, pos = result
        divided = False
        while (token := self.at(pos)) is not None:
            if token.kind is TokenKind.OP and token.text in _MULTIPLICATIVE:
                if (right := self.unary(pos + 1)) is None:
                    break
                value, pos = _combine(value, token.text, right[0]), right[1]
                divided = divided or token.text != "×"
            elif _implicit_product(self.tokens[pos - 1], token) and not divided:
                if (right := self.power(pos)) is None:
                    break
                value, pos = _combine(value, "×", right[0]), right[1]
            else:
                break
        return value, pos

    def unary(self, pos: int) -> _Result:
        token = self.at(pos)
        if token is not None and token.kind is TokenKind.SIGN:
            result = self.unary(pos + 1)
            return None if result is None else (_negate(result[0]), result[1])
        return self.power(pos)

    def power(self, pos: int) -> _Result:
        primary = self.primary(pos, units=True)
        if primary is None:
            return None
        base, after, had_units = primary
        caret = self.at(after)
        if caret is None or caret.kind is not TokenKind.OP or caret.text != "^" or had_units:
            return base, after
        exponent = self.exponent(after + 1)
        if exponent is None:
            return base, after
        return _power(base, exponent[0]), exponent[1]

    def exponent(self, pos: int) -> _Result:
        token = self.at(pos)
        if token is not None and token.kind is TokenKind.SIGN:
            result = self.exponent(pos + 1)
            return None if result is None else (_negate(result[0]), result[1])
        primary = self.primary(pos, units=False)
        if primary is None:
            return None
        base, after, _ = primary
        caret = self.at(after)
        if caret is None or caret.kind is not TokenKind.OP or caret.text != "^":
            return base, after
        higher = self.exponent(after + 1)
        return (base, after) if higher is None else (_power(base, higher[0]), higher[1])

    def primary(self, pos: int, *, units: bool) -> tuple[_Value, int, bool] | None:
        token = self.at(pos)
        if token is None:
            return None
        if token.kind is TokenKind.NUM:
            assert token.value is not None
            value, after = _Value(token.value, token.percent), pos + 1
        elif token.kind in _OPEN_CLOSE:
            group = self.group(pos)
            if group is None:
                return None
            value, after = group
        elif token.kind is TokenKind.FRAC:
            numerator = self.group(pos + 1, TokenKind.LBRACE)
            if numerator is None:
                return None
            denominator = self.group(numerator[1], TokenKind.LBRACE)
            if denominator is None:
                return None
            value, after = _combine(numerator[0], "/", denominator[0]), denominator[1]
        else:
            return None
        if not units:
            return value, after, False
        with_units = _skip_units(self.tokens, after, self.hi)
        return value, with_units, with_units > after

    def group(self, pos: int, kind: TokenKind | None = None) -> _Result:
        opener = self.at(pos)
        if opener is None or opener.kind not in _OPEN_CLOSE or kind not in (None, opener.kind):
            return None
        inner = self.expr(pos + 1)
        if inner is None:
            return None
        value, after = inner
        closer = self.at(after)
        if closer is None or closer.kind is not _OPEN_CLOSE[opener.kind]:
            return None
        return value, after + 1


def _implicit_product(previous: Token, token: Token) -> bool:
    r"""``2(3)``, ``(1)(2)``, ``\frac{1}{2}\frac{1}{3}``; not ``2 (3 more)``, ``2\frac{1}{2}``."""
    if token.kind not in (TokenKind.LPAREN, TokenKind.LBRACE, TokenKind.FRAC):
        return False
    if previous.kind in _CLOSERS:
        return True
    return previous.kind is TokenKind.NUM and token.kind is not TokenKind.FRAC and not token.spaced


def _skip_units(tokens: Sequence[Token], pos: int, hi: int) -> int:
    r"""Past the unit words after a number: ``legs``, ``\text{ cups}``, ``(insects)``."""
    while pos < hi:
        token = tokens[pos]
        if token.kind is TokenKind.WORD:
            pos += 1
            continue
        if token.kind is TokenKind.LPAREN:
            close = pos + 1
            while close < hi and tokens[close].kind is TokenKind.WORD:
                close += 1
            if close > pos + 1 and close < hi and tokens[close].kind is TokenKind.RPAREN:
                pos = close + 1
                continue
        break
    return pos


def _bare(tokens: Sequence[Token], lo: int, end: int) -> tuple[bool, tuple[str, ...], int]:
    pos = lo
    while pos < end and tokens[pos].kind is TokenKind.SIGN:
        pos += 1
    if pos >= end or tokens[pos].kind is not TokenKind.NUM:
        return False, (), 0
    rest = tokens[pos + 1 : end]
    if any(t.kind not in _UNIT_KINDS for t in rest):
        return False, (), 0
    units = tuple(t.text for t in rest if t.kind is TokenKind.WORD)
    return True, units, tokens[pos].decimals


def _negate(value: _Value) -> _Value:
    if value.q is None:
        return value
    return _Value(-value.q, value.percent)


def _combine(left: _Value, op: str, right: _Value) -> _Value:
    if left.q is None:
        return left
    if right.q is None:
        return right
    if op in _ADDITIVE:
        if left.percent != right.percent:
            return _Value(None, reason="a percentage added to a plain number")
        total = left.q + right.q if op == "+" else left.q - right.q
        return _Value(total, left.percent)
    if op == "×":
        return _Value(left.q * right.q)
    if right.q == 0:
        return _Value(None, reason="division by zero")
    return _Value(left.q / right.q)


def _power(base: _Value, exponent: _Value) -> _Value:
    if base.q is None:
        return base
    if exponent.q is None:
        return exponent
    if exponent.percent or base.percent:
        return _Value(None, reason="a power of a percentage")
    if exponent.q.denominator != 1:
        return _Value(None, reason="a fractional power")
    n = exponent.q.numerator
    if base.q == 0 and n < 0:
        return _Value(None, reason="division by zero")
    bits = max(base.q.numerator.bit_length(), base.q.denominator.bit_length())
    if bits * abs(n) > MAX_POWER_BITS:
        return _Value(None, reason="a power too large to compute")
    return _Value(base.q**n)
