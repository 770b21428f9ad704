"""Typed reading of one JSON object of a trace, with errors that name the field's path.

What stays hand-written reads with it: the upgrade of old run records (``legacy_run_record``);
the current records are declared and read by ``llenvs.core.read_record``. The checks beside it
serve records built in Python and the trace index's summaries.

Example:
    >>> reader = RecordReader({"n": 3, "s": "x"}, "trace")
    >>> reader.integer("n"), reader.text("s")
    (3, 'x')
    >>> reader.done()

"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from llenvs.core import INT64
from llenvs.traces.records._trace_format_error import TraceFormatError

__all__ = [
    "INT64",
    "RecordReader",
    "check_integer",
    "check_json_safe",
    "check_number",
    "check_scores",
    "show",
]


def check_integer(value: object, where: str) -> int:
    """``value`` when it is an integer in ``INT64`` (booleans refused); else a ``TraceFormatError``.

    Example:
        >>> check_integer(3, "trace.task.task_index")
        3
        >>> check_integer(10**40, "trace.task.task_index")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.traces.TraceFormatError: trace.task.task_index: an integer out of range: ...

    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise TraceFormatError(f"{where}: expected an integer, got {show(value)}")
    if value not in INT64:
        raise TraceFormatError(
            f"{where}: an integer out of range: it must fit in 64 bits (-2^63 to 2^63 - 1), got "
            f"{show(value)} ({len(str(abs(value)))} digits)"
        )
    return value


def check_number(value: object, where: str) -> float:
    """``value`` as a finite float (booleans refused); else a ``TraceFormatError``.

    JSON reading already refuses NaN, Infinity and ``1e400``; an integer too large for a float
    (``10**400``) is refused here.

    Example:
        >>> check_number(10**30, "trace.final_rewards.correctness")
        1e+30
        >>> check_number(10**400, "trace.final_rewards.correctness")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.traces.TraceFormatError: trace.final_rewards.correctness: a number out of range: ...

    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TraceFormatError(f"{where}: expected a number, got {show(value)}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise TraceFormatError(
            f"{where}: a number out of range: it must be a finite float, got {show(value)}"
        )
    return number


def check_json_safe(value: Any, where: str) -> None:
    """Refuse a value that would not come back identical from JSON (tuples, sets, NaN, objects).

    Example:
        >>> check_json_safe({"a": [1, 2.5, None, True, "x"]}, "metadata")
        >>> check_json_safe({"a": (1, 2)}, "metadata")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.traces.TraceFormatError: metadata.a: not JSON-safe: (1, 2) ...

    """
    if value is None or isinstance(value, bool | int | str):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TraceFormatError(f"{where}: not JSON-safe: {value!r} (not finite)")
        return
    if isinstance(value, list):
        for number, item in enumerate(value):
            check_json_safe(item, f"{where}[{number}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TraceFormatError(f"{where}: not JSON-safe: key {key!r} is not a string")
            check_json_safe(item, f"{where}.{key}")
        return
    hint = " (a tuple; use a list)" if isinstance(value, tuple) else ""
    raise TraceFormatError(f"{where}: not JSON-safe: {value!r}{hint}")


class RecordReader:
    """Reads the fields of one JSON object, each at most once, checking types.

    ``done()`` refuses the fields nobody read (an unknown field is a mistake, not data to drop).

    Example:
        >>> RecordReader({"x": "1"}, "trace.task").integer("x")
        Traceback (most recent call last):
        ...
        llenvs.traces.TraceFormatError: trace.task.x: expected an integer, got '1'

    """

    def __init__(self, data: object, where: str) -> None:
        if not isinstance(data, dict):
            raise TraceFormatError(f"{where}: expected an object, got {show(data)}")
        self.data: dict[str, Any] = data
        self.where = where
        self.seen: set[str] = set()

    def path(self, key: str) -> str:
        """The path of a field, for messages.

        Example:
            >>> RecordReader({}, "trace").path("run")
            'trace.run'

        """
        return f"{self.where}.{key}"

    def raw(self, key: str) -> Any:
        """The field's value as stored; a missing field is an error.

        Example:
            >>> RecordReader({"a": [1]}, "t").raw("a")
            [1]

        """
        if key not in self.data:
            raise TraceFormatError(f"{self.path(key)}: missing")
        self.seen.add(key)
        return self.data[key]

    def text(self, key: str) -> str:
        """A string field.

        Example:
            >>> RecordReader({"a": "x"}, "t").text("a")
            'x'

        """
        value = self.raw(key)
        if not isinstance(value, str):
            raise TraceFormatError(f"{self.path(key)}: expected a string, got {show(value)}")
        return value

    def opt_text(self, key: str) -> str | None:
        """A string or null field.

        Example:
            >>> RecordReader({"a": None}, "t").opt_text("a") is None
            True

        """
        return None if self.raw(key) is None else self.text(key)

    def integer(self, key: str) -> int:
        """An integer field in ``INT64`` (booleans refused).

        Example:
            >>> RecordReader({"a": 2}, "t").integer("a")
            2

        """
        return check_integer(self.raw(key), self.path(key))

    def opt_integer(self, key: str) -> int | None:
        """An integer or null field.

        Example:
            >>> RecordReader({"a": None}, "t").opt_integer("a") is None
            True

        """
        return None if self.raw(key) is None else self.integer(key)

    def obj(self, key: str) -> dict[str, Any]:
        """An object field (JSON-safe by construction).

        Example:
            >>> RecordReader({"a": {"k": 1}}, "t").obj("a")
            {'k': 1}

        """
        value = self.raw(key)
        if not isinstance(value, dict):
            raise TraceFormatError(f"{self.path(key)}: expected an object, got {show(value)}")
        return value

    def done(self) -> None:
        """Refuse the fields that were not read.

        Example:
            >>> RecordReader({"extra": 1}, "trace").done()
            Traceback (most recent call last):
            ...
            llenvs.traces.TraceFormatError: trace: unknown field(s): extra

        """
        unknown = sorted(set(self.data) - self.seen)
        if unknown:
            raise TraceFormatError(f"{self.where}: unknown field(s): {', '.join(unknown)}")


def check_scores(scores: Mapping[str, float], where: str) -> None:
    """Refuse a name -> score mapping with a non-string name or a non-finite number.

    Example:
        >>> check_scores({"prm": float("inf")}, "segment.rewards")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.traces.TraceFormatError: segment.rewards.prm: expected a finite number...

    """
    for name, score in scores.items():
        if not isinstance(name, str):
            raise TraceFormatError(f"{where}: name {name!r} is not a string")
        if (
            isinstance(score, bool)
            or not isinstance(score, int | float)
            or not math.isfinite(score)
        ):
            raise TraceFormatError(f"{where}.{name}: expected a finite number, got {score!r}")


def show(value: object) -> str:
    """A short rendering of a value for messages.

    Example:
        >>> show("x" * 100)[-5:]
        'xx...'

    """
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
