"""What a number box's text comes to: the number used, clamped or refused, and what it says.

A box's text is read against its range once (``read_number``): a number in the range is used
as typed; one outside is clamped to the nearest end, with a note that says so, or refused, with
the range and why it is there; a text that is no number is refused. The caller acts on what is
used and nothing else: an action whose box refuses stays off, and the caption of a plan states
the number used. Whole-number ranges are the library's ``Bound`` (the CLI checks the same
ones), ranges of real numbers (a temperature, a width) its ``FloatBound``.

Example:
    >>> from llenvs.core._bounds import SAMPLES
    >>> read_number("99999999999999999999", SAMPLES).problem
    'samples must be 1..16 (the resamples of one intervention, generated together), got 99999999999999999999'
    >>> read_number("0", SAMPLES, OutOfRange.CLAMP)
    NumberEntry(value=1, note='samples 0 clamped to 1 (allowed 1..16)')

"""  # noqa: E501

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from enum import Enum
from typing import Generic, TypeVar, overload

from llenvs.core import Bound, FloatBound

__all__ = ["TEMPERATURE", "NumberEntry", "OutOfRange", "allowed", "read_number"]

N = TypeVar("N", int, float)

_SHOWN = 40
"""The most characters of a typed text a message repeats (a pasted page stays out)."""


class OutOfRange(Enum):
    """What a box does with a number outside its range."""

    CLAMP = "clamp"
    """Use the nearest end of the range, and say so under the box."""
    REFUSE = "refuse"
    """Use nothing, and say why: the action the box feeds stays off."""


TEMPERATURE = FloatBound("temperature", 0.0, 2.0, "0 is greedy")
"""A sampling temperature the workbench's boxes take."""


@dataclass(frozen=True)
class NumberEntry(Generic[N]):
    """The number a box's text comes to, and what the box says about it.

    Example:
        >>> NumberEntry(None, "seed must be an integer 0..9, got 'x'").problem
        "seed must be an integer 0..9, got 'x'"

    """

    value: N | None
    """The number used; None when the box refuses its text."""
    note: str | None = None
    """What the box says under it: how it clamped, or why it refuses; None for a number used
    as typed."""

    @property
    def problem(self) -> str | None:
        """Why the box refuses (its note), or None when it gives a number."""
        return self.note if self.value is None else None


def allowed(bound: Bound | FloatBound) -> str:
    """The range in words, as the boxes show it.

    Example:
        >>> allowed(Bound("k", 0, 3)), allowed(FloatBound("t", 0.05, 2.0))
        ('0..3', '0.05..2')

    """
    return bound.span()


@overload
def read_number(
    text: str, bound: Bound, out_of_range: OutOfRange = ..., name: str | None = ...
) -> NumberEntry[int]: ...


@overload
def read_number(
    text: str, bound: FloatBound, out_of_range: OutOfRange = ..., name: str | None = ...
) -> NumberEntry[float]: ...


def read_number(
    text: str,
    bound: Bound | FloatBound,
    out_of_range: OutOfRange = OutOfRange.REFUSE,
    name: str | None = None,
) -> NumberEntry[int] | NumberEntry[float]:
    """What ``text`` comes to in a box of range ``bound``: never an exception.

    ``name`` is how the box's user knows the number (its label); the bound's own by default.

    Example:
        >>> from llenvs.core._bounds import MAX_TOKENS
        >>> read_number(" 1e3 ", MAX_TOKENS).value
        1000
        >>> read_number("2.5", MAX_TOKENS, name="max tokens").problem
        "max tokens must be an integer 1..131072, got '2.5'"
        >>> read_number("7", FloatBound("temperature", 0.0, 2.0), OutOfRange.CLAMP).note
        'temperature 7 clamped to 2 (allowed 0..2)'

    """
    shown = name or bound.name
    typed = text.strip()
    number = _decimal(typed)
    whole = isinstance(bound, Bound)
    if number is None or (whole and number != number.to_integral_value()):
        kind = "an integer" if whole else "a number"
        return NumberEntry(None, f"{shown} must be {kind} {allowed(bound)}, got {_cut(typed)!r}")
    low, high = (Decimal(bound.low), Decimal(bound.high)) if whole else _float_ends(bound)
    if low <= number <= high:
        return NumberEntry(int(number)) if whole else NumberEntry(float(number))
    if out_of_range is OutOfRange.REFUSE:
        return NumberEntry(None, f"{shown} {bound.describe()}, got {_cut(typed)}")
    end = bound.low if number < low else bound.high
    note = f"{shown} {_cut(typed)} clamped to {bound.spell(end)} (allowed {allowed(bound)})"
    return NumberEntry(end, note) if whole else NumberEntry(float(end), note)


def _decimal(text: str) -> Decimal | None:
    """``text`` as an exact finite decimal (``1e3``, ``1_000``, ``-0.5``), else None."""
    try:
        number = Decimal(text)
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def _float_ends(bound: Bound | FloatBound) -> tuple[Decimal, Decimal]:
    """The ends of a real range as the decimals their shortest spellings name.

    0.01, not 0.01000000000000000020816...: typing an end gives that end.
    """
    return Decimal(repr(float(bound.low))), Decimal(repr(float(bound.high)))


def _cut(typed: str) -> str:
    """The typed text, cut to ``_SHOWN`` characters with its length said when longer."""
    if len(typed) <= _SHOWN:
        return typed
    return f"{typed[:_SHOWN]}… ({len(typed)} characters)"
