"""``--where EXPR``: a small filter language over a step's facts, read without ``eval``.

An expression is comparisons joined by ``and``, ``or``, ``not`` and parentheses. A comparison
is a fact (``StepFacts``' fields) with ``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=`` or ``~``
(contains, any case) and a number, a quoted string, ``true``, ``false`` or ``none``; a fact on
its own holds when it is set and not 0 (``moved``: its chance is above 1/2; ``success``: the
trace succeeded). A label compares with a number or a word: ``wrong``/``bad`` (-1),
``neutral`` (0), ``correct``/``good``/``right`` (1). A fact with no value (``none``) matches
only ``== none``: an unscored step is neither above, below nor unequal to a number.

The expression becomes one SQL condition over the index's columns, its values as parameters
(``Where.sql``, ``Where.params``), so the index filters while it searches.

Example:
    >>> where = Where.parse('reward > 0.5 and label == "bad" or moved')
    >>> where.sql
    '((("reward" > ?) AND ("label" = ?)) OR ("moved" > ?))'
    >>> where.params
    (0.5, -1, 0.5)
    >>> Where.parse("rewrd > 1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llenvs.workbench.search.WhereError: --where 'rewrd > 1': unknown field 'rewrd' (at 0); ...

"""

from __future__ import annotations

import re
from dataclasses import dataclass

from llenvs.core.errors import LlenvsError
from llenvs.workbench.search._step_facts import FACT_FIELDS

__all__ = ["LABEL_WORDS", "Where", "WhereError"]

LABEL_WORDS = {"wrong": -1, "bad": -1, "neutral": 0, "correct": 1, "good": 1, "right": 1}
"""The words a label compares with, and the label each means."""

MOVED_CHANCE = 0.5
"""A step is called moved when its chance of having moved the value is above this."""

_TOKEN = re.compile(
    r"""\s*(?:(?P<number>-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)|(?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
    |(?P<op>==|!=|<=|>=|<|>|~|=)|(?P<paren>[()])|(?P<word>[A-Za-z_]\w*))""",
    re.VERBOSE,
)
_SQL_OPS = {"==": "=", "=": "=", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_CONSTANTS = {"true": True, "false": False, "none": None, "null": None}


class WhereError(LlenvsError, ValueError):
    """A ``--where`` expression that does not read; the message lists the fields."""

    __module__ = "llenvs.workbench.search"


@dataclass(frozen=True)
class Where:
    """A parsed filter: an SQL condition over the index's columns and its parameters."""

    text: str
    """The expression as written."""
    sql: str
    """The condition (column names quoted, every value a ``?``)."""
    params: tuple[object, ...]
    """The condition's values, in order."""

    @classmethod
    def parse(cls, text: str) -> Where:
        """Read ``text``; a ``WhereError`` naming what is wrong and where when it does not read.

        Example:
            >>> Where.parse('model ~ "smol" and not success').sql
            '(instr(lower("model"), lower(?)) > 0 AND NOT ("success" = 1))'
            >>> Where.parse("").sql
            '1'

        """
        tokens = _tokens(text)
        if not tokens:
            return cls(text, "1", ())
        parser = _Parser(text, tokens)
        sql = parser.expression()
        if parser.at < len(tokens):
            parser.fail(f"unexpected {tokens[parser.at][1]!r}")
        return cls(text, sql, tuple(parser.params))


def _tokens(text: str) -> list[tuple[str, str, int]]:
    """``(kind, text, offset)`` of each token; a ``WhereError`` at the first that is none."""
    found, at = [], 0
    while at < len(text):
        if text[at:].strip() == "":
            break
        match = _TOKEN.match(text, at)
        if match is None or match.end() == at:
            offset = at + len(text[at:]) - len(text[at:].lstrip())
            raise WhereError(f"--where {text!r}: cannot read {text[offset:][:10]!r} (at {offset})")
        kind = match.lastgroup or ""
        found.append((kind, match.group(kind), match.start(kind)))
        at = match.end()
    return found


class _Parser:
    """Recursive descent: or → and → not → comparison; SQL text out, values kept in order."""

    def __init__(self, text: str, tokens: list[tuple[str, str, int]]) -> None:
        self.text = text
        self.tokens = tokens
        self.at = 0
        self.params: list[object] = []

    def fail(self, why: str) -> None:
        offset = self.tokens[self.at][2] if self.at < len(self.tokens) else len(self.text)
        fields = ", ".join(FACT_FIELDS)
        raise WhereError(f"--where {self.text!r}: {why} (at {offset}); the fields: {fields}")

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def word(self, word: str) -> bool:
        token = self.peek()
        if token is not None and token[0] == "word" and token[1].lower() == word:
            self.at += 1
            return True
        return False

    def expression(self) -> str:
        parts = [self.conjunction()]
        while self.word("or"):
            parts.append(self.conjunction())
        return parts[0] if len(parts) == 1 else f"({' OR '.join(parts)})"

    def conjunction(self) -> str:
        parts = [self.negation()]
        while self.word("and"):
            parts.append(self.negation())
        return parts[0] if len(parts) == 1 else f"({' AND '.join(parts)})"

    def negation(self) -> str:
        if self.word("not"):
            return f"NOT {self.negation()}"
        token = self.peek()
        if token is not None and token[1] == "(":
            self.at += 1
            inner = self.expression()
            closing = self.peek()
            if closing is None or closing[1] != ")":
                self.fail("a '(' is not closed")
            self.at += 1
            return inner
        return self.comparison()

    def comparison(self) -> str:
        token = self.peek()
        if token is None:
            self.fail("a field is missing")
            raise AssertionError  # fail raised
        if token[0] != "word" or token[1] not in FACT_FIELDS:
            self.fail(f"unknown field {token[1]!r}" if token[0] == "word" else "expected a field")
        field, kind = token[1], FACT_FIELDS[token[1]]
        self.at += 1
        operator = self.peek()
        if operator is None or operator[0] != "op":
            return self._bare(field, kind)
        self.at += 1
        value = self._value(field, kind)
        return self._compare(field, operator[1], value)

    def _bare(self, field: str, kind: type) -> str:
        if field == "moved":
            self.params.append(MOVED_CHANCE)
            return '("moved" > ?)'
        if kind is str:
            return f'("{field}" IS NOT NULL AND "{field}" != \'\')'
        if field == "success":
            return '("success" = 1)'
        return f'("{field}" IS NOT NULL AND "{field}" != 0)'

    def _value(self, field: str, kind: type) -> object:
        token = self.peek()
        if token is None:
            self.fail(f"a value is missing after {field}")
            raise AssertionError
        self.at += 1
        name, text = token[0], token[1]
        if name == "number":
            return float(text) if kind is float or "." in text or "e" in text.lower() else int(text)
        if name == "string":
            value = re.sub(r"\\(.)", r"\1", text[1:-1])
            if field == "label":
                if value.lower() not in LABEL_WORDS:
                    self.fail(f"label is a number or one of {', '.join(LABEL_WORDS)}")
                return LABEL_WORDS[value.lower()]
            return value
        if name == "word" and text.lower() in _CONSTANTS:
            return _CONSTANTS[text.lower()]
        if name == "word" and field == "label" and text.lower() in LABEL_WORDS:
            return LABEL_WORDS[text.lower()]
        self.at -= 1
        self.fail(f"expected a number, a quoted string, true, false or none after {field}")
        raise AssertionError

    def _compare(self, field: str, operator: str, value: object) -> str:
        column = f'"{field}"'
        if value is None:
            if operator not in ("==", "=", "!="):
                self.fail(f"none compares only with == or != ({field} {operator} none)")
            return f"({column} IS {'NOT ' if operator == '!=' else ''}NULL)"
        if operator == "~":
            self.params.append(str(value))
            return f"instr(lower({column}), lower(?)) > 0"
        self.params.append(int(value) if isinstance(value, bool) else value)
        return f"({column} {_SQL_OPS[operator]} ?)"
