"""Reading a spec's record (a JSON object) field by field, with errors that name the field.

Every ``from_record`` of the run spec reads its object through a ``RecordFields``: a field it
does not know, a missing one, a value of the wrong type or an enum value outside its choices
raises ``ValueError`` naming the record, the field and what it may be.

Example:
    >>> fields = RecordFields({"max_tokens": 8, "nope": 1}, "sampling", ("max_tokens",))
    Traceback (most recent call last):
    ...
    ValueError: sampling: unknown field(s): nope: choose from max_tokens
    >>> RecordFields({"n": "x"}, "thing", ("n",)).integer("n")
    Traceback (most recent call last):
    ...
    ValueError: thing.n: expected an integer, got 'x'

"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Any, TypeVar

__all__ = ["RecordFields"]

E = TypeVar("E", bound=Enum)

_MISSING = object()
"""A field the record does not hold."""


class RecordFields:
    """The fields of one record, read with checks (see the module docstring).

    Example:
        >>> RecordFields({"a": "x"}, "r", ("a", "b")).text("b", "default")
        'default'

    """

    def __init__(self, obj: object, what: str, known: Sequence[str]) -> None:
        if not isinstance(obj, Mapping):
            raise ValueError(f"{what}: expected a JSON object, got {type(obj).__name__}")
        unknown = sorted(str(key) for key in obj if key not in known)
        if unknown:
            raise ValueError(
                f"{what}: unknown field(s): {', '.join(unknown)}: choose from {', '.join(known)}"
            )
        self.obj: Mapping[str, Any] = obj
        self.what = what

    def _get(self, key: str, default: object) -> object:
        value = self.obj.get(key, _MISSING)
        if value is _MISSING:
            if default is _MISSING:
                raise ValueError(f"{self.what}: the field {key!r} is missing")
            return default
        return value

    def _wrong(self, key: str, expected: str, value: object) -> ValueError:
        return ValueError(f"{self.what}.{key}: expected {expected}, got {value!r}")

    def enum(self, key: str, kind: type[E]) -> E:
        """A required enum field, by its value; an unknown value lists the valid ones."""
        value = self._get(key, _MISSING)
        for member in kind:
            if member.value == value:
                return member
        choices = ", ".join(str(member.value) for member in kind)
        raise ValueError(f"{self.what}.{key}: {value!r} is not one of: {choices}")

    def text(self, key: str, default: Any = _MISSING) -> Any:
        """A string field (``default`` when absent; a present null is ``default`` too)."""
        value = self._get(key, default)
        if value is None or value is default:
            return value
        if not isinstance(value, str):
            raise self._wrong(key, "a string", value)
        return value

    def integer(self, key: str, default: Any = _MISSING) -> Any:
        """An integer field (not a bool)."""
        value = self._get(key, default)
        if value is None or value is default:
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._wrong(key, "an integer", value)
        return value

    def number(self, key: str, default: Any = _MISSING) -> Any:
        """A number field, as a float (an integer reads as one)."""
        value = self._get(key, default)
        if value is None or value is default:
            return value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self._wrong(key, "a number", value)
        return float(value)

    def flag(self, key: str, default: Any = _MISSING) -> Any:
        """A boolean field."""
        value = self._get(key, default)
        if value is default:
            return value
        if not isinstance(value, bool):
            raise self._wrong(key, "true or false", value)
        return value

    def texts(self, key: str, default: tuple[str, ...] = ()) -> tuple[str, ...]:
        """A list of strings, as a tuple."""
        value = self._get(key, default)
        if value is default:
            return default
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
            raise self._wrong(key, "a list of strings", value)
        return tuple(value)

    def raw(self, key: str, default: Any = _MISSING) -> Any:
        """A field as it is (a nested record, read by its own ``from_record``)."""
        return self._get(key, default)
