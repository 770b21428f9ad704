r"""The arithmetic checker's tokenizer: a step's text as numbers, operators, words and breaks.

One regular-expression scan turns plain text, Markdown and simple LaTeX into tokens the
expression parser understands. It decides, once and for all, the things that would otherwise fool
an arithmetic checker:

- ``17,745`` and ``17{,}745`` are one number; the ``,`` of ``3,5`` and the ``:`` of ``3:2`` are
  POISON, as are a number glued to a letter (``2x``, ``1st``, ``5kg``) and a factorial ``!``;
- a hyphen range (``pages 3-5``, ``1-2 hours``, ``rooms (10-60)``: two whole numbers joined by a
  bare ``-``, the smaller first, after prose and before prose, a break or ``=``) is POISON, not a
  subtraction;
- ``\times``, ``\cdot``, ``*``, ``·`` and a lone ``x`` between numbers are ``×``; ``\div`` is
  ``÷``; ``\frac`` is FRAC; ``\left``, ``\boxed``, ``$``, ``**`` and ``\(`` are skipped;
- ``\text{...}`` is one WORD (a unit); words are units or prose; single letters (variables),
  unknown LaTeX commands (``\sqrt``, ``\pi``) and function or operator words are POISON;
- newlines, sentence punctuation, relations other than ``=`` (``\neq``, ``≈``, ``<``), ``\quad``
  and tags such as ``<answer>`` are BREAKs: no equation spans one.

Example:
    >>> [(t.kind.name, t.text) for t in tokenize(r"6 legs \times 5 = 30")]
    [('NUM', '6'), ('WORD', 'legs'), ('OP', '×'), ('NUM', '5'), ('EQ', '='), ('NUM', '30')]

"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

from llenvs.rewards.arithmetic._lexicon import (
    BREAK_COMMANDS,
    COMMAND_OPERATORS,
    FRACTIONS,
    OPERATORS,
    PREFIX_POISON_WORDS,
    SCANNER,
    SKIPPED_COMMANDS,
    UNIT_POISON_WORDS,
)

__all__ = ["Token", "TokenKind", "tokenize"]


class TokenKind(Enum):
    """What a token is to the expression parser.

    Example:
        >>> tokenize("2 + 2")[1].kind is TokenKind.OP
        True

    """

    NUM = "number"
    """A number: ``42``, ``17,745``, ``2.5``, ``40%``."""
    SIGN = "sign"
    """A minus glued to what follows, where no operand precedes it (``-2``, ``= -5``)."""
    OP = "operator"
    """A binary operator, normalised to one of ``+ - × ÷ / ^``."""
    LPAREN = "("
    """``(`` (square brackets are POISON: ``[22.8] = 22`` is a floor)."""
    RPAREN = ")"
    """``)``."""
    LBRACE = "{"
    """A LaTeX group's ``{``."""
    RBRACE = "}"
    """A LaTeX group's ``}``."""
    FRAC = "frac"
    """``\\frac`` (or ``\\dfrac``, ``\\tfrac``, ``\\cfrac``)."""
    EQ = "="
    """An equals sign."""
    WORD = "word"
    """Words (a unit after a number, or prose: a run of ordinary words is one token), or a whole
    ``\\text{...}``."""
    BREAK = "break"
    """Something no equation spans: a newline, ``.``, ``,``, ``:``, a relation, a tag."""
    POISON = "poison"
    """Something that makes the expression it touches uncheckable (``x``, ``\\sqrt``, ``5!``)."""


@dataclass(frozen=True, slots=True)
class Token:
    """One token of a step's text.

    Example:
        >>> tokenize("17,745")[0].value
        Fraction(17745, 1)

    """

    kind: TokenKind
    """What it is."""
    text: str
    """Its text: the normalised operator for OP, the lower-cased word for WORD, else as written."""
    start: int
    """Where it starts in the step's text."""
    end: int
    """Where it ends in the step's text."""
    value: Fraction | None = None
    """The number's exact value (NUM only; a percentage is already divided by 100)."""
    decimals: int = 0
    """Digits after the decimal point as written (NUM; +2 for a percentage)."""
    percent: bool = False
    """True for a percentage (NUM)."""
    spaced: bool = False
    """True when whitespace separates it from the token before."""
    line_start: bool = False
    """True for the BREAK of a newline (what follows starts a line)."""
    prefix_poison: bool = False
    """True for a WORD that changes the number after it (``of``, ``twice``, ``sqrt``)."""


def tokenize(text: str) -> list[Token]:
    r"""Split ``text`` into tokens; positions refer to ``text``.

    Example:
        >>> [t.kind.name for t in tokenize(r"\frac{1}{2} \neq 3x")]
        ['FRAC', 'LBRACE', 'NUM', 'RBRACE', 'LBRACE', 'NUM', 'RBRACE', 'BREAK', 'POISON', 'POISON']

    """
    tokens: list[Token] = []
    spaced = False
    for match in SCANNER.finditer(text):
        group = match.lastgroup
        if group == "ws":
            spaced = True
            continue
        if group == "skip" or (group == "cmd" and match.group() in SKIPPED_COMMANDS):
            continue
        token = _token(text, match, group, spaced, tokens)
        spaced = False
        if token is None:
            continue
        if token.kind is TokenKind.NUM and tokens and _glued_numbers(tokens[-1], token):
            tokens[-1] = _poisoned(tokens[-1])
            token = _poisoned(token)
        tokens.append(token)
    return _hyphen_ranges(text, _times_from_x(tokens))


def _token(
    text: str, match: re.Match[str], group: str | None, spaced: bool, tokens: list[Token]
) -> Token | None:
    start, end = match.span()
    raw = match.group()
    if group == "nl":
        return Token(TokenKind.BREAK, raw, start, end, spaced=spaced, line_start=True)
    if group in ("tag", "rel"):
        return Token(TokenKind.BREAK, raw, start, end, spaced=spaced)
    if group == "text":
        return Token(TokenKind.WORD, raw, start, end, spaced=spaced)
    if group == "number":
        return _number(text, match, spaced)
    if group == "cmd":
        return _command(raw, start, end, spaced)
    if group == "word":
        return _words(text, raw, start, end, spaced, tokens)
    if group == "eq":
        return Token(TokenKind.EQ, raw, start, end, spaced=spaced)
    if group == "op":
        kind = TokenKind.SIGN if _is_sign(text, raw, end, tokens) else TokenKind.OP
        return Token(kind, OPERATORS[raw], start, end, spaced=spaced)
    if group in ("open", "close", "lbrace", "rbrace"):
        kinds = {
            "open": TokenKind.LPAREN,
            "close": TokenKind.RPAREN,
            "lbrace": TokenKind.LBRACE,
            "rbrace": TokenKind.RBRACE,
        }
        return Token(kinds[group], raw, start, end, spaced=spaced)
    if group == "punct":
        glued = 0 < start and end < len(text) and text[start - 1].isdigit()
        if raw in ",:" and glued and text[end].isdigit():
            return Token(TokenKind.POISON, raw, start, end, spaced=spaced)
        if raw == "!" and tokens and not spaced and tokens[-1].kind in _OPERANDS_END:
            return Token(TokenKind.POISON, raw, start, end, spaced=spaced)
        return Token(TokenKind.BREAK, raw, start, end, spaced=spaced)
    if group == "sup":
        # ``3²`` is ``3 ^ 2``: an operator token and a number token on the same character.
        tokens.append(Token(TokenKind.OP, "^", start, start, spaced=spaced))
        exponent = 2 if raw == "²" else 3
        return Token(TokenKind.NUM, str(exponent), start, end, value=Fraction(exponent))
    if raw == "°":
        return Token(TokenKind.WORD, raw, start, end, spaced=spaced)
    return Token(TokenKind.POISON, raw, start, end, spaced=spaced)


_OPERANDS_END = frozenset({TokenKind.NUM, TokenKind.RPAREN, TokenKind.RBRACE})


def _number(text: str, match: re.Match[str], spaced: bool) -> Token:
    start, end = match.span()
    digits = match.group("num")
    percent = match.group("pct") is not None
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    if before.isalpha() or before == "_" or after.isalpha() or after == "_":
        return Token(TokenKind.POISON, match.group(), start, end, spaced=spaced)
    plain = digits.replace("\\,", "").replace("{,}", "").replace(",", "")
    decimals = len(plain.partition(".")[2])
    try:
        value = Fraction(plain)
    except ValueError:  # more digits than int() accepts
        return Token(TokenKind.POISON, match.group(), start, end, spaced=spaced)
    if percent:
        value /= 100
        decimals += 2
    return Token(
        TokenKind.NUM,
        match.group(),
        start,
        end,
        value=value,
        decimals=decimals,
        percent=percent,
        spaced=spaced,
    )


def _command(raw: str, start: int, end: int, spaced: bool) -> Token:
    if raw in COMMAND_OPERATORS:
        return Token(TokenKind.OP, COMMAND_OPERATORS[raw], start, end, spaced=spaced)
    if raw in FRACTIONS:
        return Token(TokenKind.FRAC, raw, start, end, spaced=spaced)
    if raw in BREAK_COMMANDS:
        return Token(TokenKind.BREAK, raw, start, end, spaced=spaced)
    return Token(TokenKind.POISON, raw, start, end, spaced=spaced)


def _words(text: str, raw: str, start: int, end: int, spaced: bool, tokens: list[Token]) -> Token:
    """A run of words: one WORD token when none is special, else one token per word."""
    words = raw.lower().split(" ")
    plain = (end >= len(text) or text[end] != "(") and all(
        len(w) > 1 and w not in UNIT_POISON_WORDS and w not in PREFIX_POISON_WORDS for w in words
    )
    if plain:
        return Token(TokenKind.WORD, raw.lower(), start, end, spaced=spaced)
    position = start
    for word in raw.split(" ")[:-1]:
        tokens.append(_word(text, word, position, position + len(word), spaced))
        position += len(word) + 1
        spaced = True
    return _word(text, text[position:end], position, end, spaced)


def _word(text: str, raw: str, start: int, end: int, spaced: bool) -> Token:
    lower = raw.lower()
    call = end < len(text) and text[end] == "("
    variable = len(raw) == 1  # ``x``, ``a``, ``π``: a variable, never a unit
    if call or variable or lower in UNIT_POISON_WORDS:
        return Token(TokenKind.POISON, raw, start, end, spaced=spaced)
    return Token(
        TokenKind.WORD, lower, start, end, spaced=spaced, prefix_poison=lower in PREFIX_POISON_WORDS
    )


def _is_sign(text: str, raw: str, end: int, tokens: list[Token]) -> bool:
    """A ``-`` glued to its operand, with no operand before it, is a sign."""
    if raw not in "-−" or end >= len(text) or text[end] not in "0123456789.({\\":
        return False
    return not tokens or tokens[-1].kind not in _OPERANDS_END


def _glued_numbers(previous: Token, token: Token) -> bool:
    return previous.kind is TokenKind.NUM and previous.end == token.start


def _poisoned(token: Token) -> Token:
    return Token(TokenKind.POISON, token.text, token.start, token.end, spaced=token.spaced)


def _times_from_x(tokens: list[Token]) -> list[Token]:
    """``2 x 60`` means ``2 × 60``: a lone, spaced ``x`` between two operands."""
    for i in range(1, len(tokens) - 1):
        token = tokens[i]
        if token.kind is TokenKind.POISON and token.text in ("x", "X"):
            before, after = tokens[i - 1], tokens[i + 1]
            if (
                token.spaced
                and after.spaced
                and before.kind in _OPERANDS_END
                and after.kind in (TokenKind.NUM, TokenKind.LPAREN)
            ):
                tokens[i] = Token(TokenKind.OP, "×", token.start, token.end, spaced=True)
    return tokens


_RANGE_BEFORE = frozenset({TokenKind.WORD, TokenKind.BREAK})
_RANGE_AFTER = frozenset({TokenKind.WORD, TokenKind.BREAK, TokenKind.EQ})


def _hyphen_ranges(text: str, tokens: list[Token]) -> list[Token]:
    """``pages 3-5`` is a range, not ``3 - 5``: the three tokens become one POISON token.

    A range is two whole numbers joined by a bare ``-`` (no space either side), the smaller
    first, with prose or a break (or nothing) before it and prose, a break, ``=`` (or nothing)
    after it (or an aside: ``rooms 10-35 (since ...``); in parentheses, the same around the
    parentheses (``room number (10-60):``).
    """
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        if i + 2 < len(tokens) and _is_range(text, tokens, i):
            first, last = tokens[i], tokens[i + 2]
            out.append(
                Token(
                    TokenKind.POISON,
                    text[first.start : last.end],
                    first.start,
                    last.end,
                    spaced=first.spaced,
                )
            )
            i += 3
            continue
        out.append(tokens[i])
        i += 1
    return out


def _is_range(text: str, tokens: list[Token], i: int) -> bool:
    low, dash, high = tokens[i], tokens[i + 1], tokens[i + 2]
    if dash.kind is not TokenKind.OP or text[dash.start : dash.end] != "-":
        return False
    if dash.spaced or high.spaced or not (_whole(low) and _whole(high)):
        return False
    assert low.value is not None and high.value is not None
    if low.value >= high.value:
        return False
    before = i - 1
    after = i + 3
    if (
        0 <= before
        and after < len(tokens)
        and tokens[before].kind is TokenKind.LPAREN
        and tokens[after].kind is TokenKind.RPAREN
    ):
        before, after = before - 1, after + 1
    if 0 <= before and tokens[before].kind not in _RANGE_BEFORE:
        return False
    if after >= len(tokens) or tokens[after].kind in _RANGE_AFTER:
        return True
    aside = after + 1 < len(tokens) and tokens[after + 1].kind is TokenKind.WORD
    return tokens[after].kind is TokenKind.LPAREN and tokens[after].spaced and aside


def _whole(token: Token) -> bool:
    """A plain whole number as written: ``12``, not ``1.5``, ``40%`` or ``1,000``."""
    return (
        token.kind is TokenKind.NUM
        and token.value is not None
        and token.value.denominator == 1
        and token.decimals == 0
        and not token.percent
        and token.text.isdigit()
    )
