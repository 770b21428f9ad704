"""Records declared once: the one converter of every record (its field types: ``_record_types``).

A record is a frozen dataclass that says it is one (``__pydantic_config__ = RECORD``: unknown
fields refused, each field described by its docstring) and whose fields say what a file may
hold: ``Int64`` (an integer that fits in 64 bits, booleans refused), ``Count`` (the same, >= 0),
``Text``, ``Flag`` (true or false only), ``Number`` (a finite float; integers read as floats),
and tuples, mappings and other records of them. Pydantic (v2) checks and builds a record from a
JSON object (``read_record``), writes its JSON object (``record_dict``) and describes it
(``record_schema``, which the file-format pages are rendered from); nothing is coerced (``"3"``
is not an integer, ``1`` is not true), a field the record does not declare is refused, and the
error names the field's path the way the readers of every file do (``trace.task.task_index:
expected an integer, got '3'``). A record checks what its types cannot say in ``__post_init__``
(a ``ValueError`` there becomes the same kind of error). Only migrations of old schema versions
stay hand-written.

Example:
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Tally:
    ...     __pydantic_config__ = RECORD
    ...     boundary: Count
    ...     success: Flag
    ...     share: Number = 0.0
    >>> read_record(Tally, {"boundary": 2, "success": True, "share": 1})
    Tally(boundary=2, success=True, share=1.0)
    >>> record_dict(Tally(2, True))
    {'boundary': 2, 'success': True, 'share': 0.0}
    >>> read_record(Tally, {"boundary": "2", "success": True}, "tally")
    Traceback (most recent call last):
    ...
    llenvs.core.errors.RecordFormatError: tally.boundary: expected an integer, got '2'
    >>> read_record(Tally, {"boundary": 2, "success": True, "extra": 0}, "tally")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llenvs.core.errors.RecordFormatError: tally: unknown field(s): extra: choose from boundary, ...

"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from llenvs.core._record_types import HERE, INT64, RECORD, Count, Flag, Int64, Number  # noqa: F401 (the examples')
from llenvs.core.errors import RecordFormatError

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = ["read_record", "record_dict", "record_schema"]

Record = TypeVar("Record")


def read_record(
    kind: type[Record],
    data: object,
    where: str = "record",
    error: type[Exception] = RecordFormatError,
) -> Record:
    """The ``kind`` record of a JSON value, or ``error`` naming what is wrong and where.

    Example:
        >>> from dataclasses import dataclass
        >>> @dataclass(frozen=True)
        ... class Step:
        ...     __pydantic_config__ = RECORD
        ...     index: Int64
        >>> read_record(Step, {"index": 10**40}, "step")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.core.errors.RecordFormatError: step.index: an integer out of range: it must fit ...

    """
    from pydantic import ValidationError

    try:
        record: Record = _adapter(kind).validate_python(data)
        return record
    except ValidationError as invalid:
        raise error(_message(invalid, where, kind)) from None


def record_dict(record: object) -> dict[str, Any]:
    """The JSON object of a record: its fields in order, tuples as lists.

    Example:
        >>> from dataclasses import dataclass
        >>> @dataclass(frozen=True)
        ... class Cuts:
        ...     __pydantic_config__ = RECORD
        ...     at: tuple[Int64, ...]
        >>> record_dict(Cuts((0, 4)))
        {'at': [0, 4]}

    """
    dumped: dict[str, Any] = _adapter(type(record)).dump_python(record, mode="json")
    return dumped


def record_schema(kind: type) -> dict[str, Any]:
    """The JSON schema of a record as written, each field described by its docstring.

    Example:
        >>> from dataclasses import dataclass
        >>> @dataclass(frozen=True)
        ... class Step:
        ...     __pydantic_config__ = RECORD
        ...     index: Count
        >>> record_schema(Step)["properties"]["index"]["minimum"]
        0

    """
    schema: dict[str, Any] = _adapter(kind).json_schema(mode="serialization")
    return schema


_ADAPTERS: dict[type, TypeAdapter[Any]] = {}
"""Each record type's converter, built once, on first use (two threads may both build one)."""


def _adapter(kind: type) -> TypeAdapter[Any]:
    """The converter of one record type."""
    adapter = _ADAPTERS.get(kind)
    if adapter is None:
        if vars(kind).get("__pydantic_config__") is not RECORD:
            raise TypeError(
                f"{kind.__name__} is not a record: it needs __pydantic_config__ = RECORD"
            )
        from pydantic import TypeAdapter

        adapter = _ADAPTERS[kind] = TypeAdapter(kind)
    return adapter


def _message(invalid: Any, where: str, kind: type) -> str:
    """The first problem of a validation, in the words every reader of the project's files uses."""
    problem = invalid.errors()[0]
    path = ".".join([where, *_path(problem["loc"])]).replace(".[", "[")
    if problem["type"] in ("unexpected_keyword_argument", "extra_forbidden"):
        parent = path.rsplit(".", 1)[0]
        unknown = sorted(
            str(other["loc"][-1])
            for other in invalid.errors()
            if other["type"] == problem["type"] and other["loc"][:-1] == problem["loc"][:-1]
        )
        record = _record_at(kind, problem["loc"][:-1])
        known = ""
        if record is not None:
            fields = _init_fields(record)
            known = f": choose from {', '.join(fields)}" if fields else ": it holds no fields"
        return f"{parent}: unknown field(s): {', '.join(unknown)}{known}"
    words = _words(problem)
    if HERE in words:  # a coded field's reader named the path itself
        return words.replace(HERE, path)
    named = _FIELD.match(words) if problem["type"] == "value_error" else None
    if named:  # a record's own check naming one of its fields: "prompt_hash: ..."
        return f"{path}.{words}".replace(".[", "[")
    return f"{path}: {words}"


_FIELD = re.compile(r"[a-z_][a-z0-9_]*(\[\d+\])?(\.[a-z_][a-z0-9_]*(\[\d+\])?)*: ")
"""A check's message that starts with the name of the field it is about."""


def _record_at(kind: Any, location: tuple[int | str, ...]) -> type | None:
    """The record type found at ``location`` inside a ``kind`` record.

    None where there is none there (a mapping's value, a coded field).
    """
    for part in location:
        kind = _unwrapped(kind)
        if isinstance(part, int) and typing.get_origin(kind) is tuple:
            kind = typing.get_args(kind)[0]
        elif isinstance(part, str) and dataclasses.is_dataclass(kind):
            kind = typing.get_type_hints(kind).get(part)
        else:
            return None
    kind = _unwrapped(kind)
    return kind if isinstance(kind, type) and dataclasses.is_dataclass(kind) else None


def _unwrapped(kind: Any) -> Any:
    """``kind`` without ``| None`` around it."""
    arguments = [a for a in typing.get_args(kind) if a is not type(None)]
    if typing.get_origin(kind) in (typing.Union, types.UnionType) and len(arguments) == 1:
        return arguments[0]
    return kind


def _init_fields(record: type) -> list[str]:
    """The fields a record's JSON may hold (those it computes included)."""
    return [item.name for item in dataclasses.fields(record)]


def _path(location: tuple[int | str, ...]) -> list[str]:
    """A validation error's location as a field path (``segments[2].text``)."""
    return [f"[{part}]" if isinstance(part, int) else str(part) for part in location]


def _words(problem: Mapping[str, Any]) -> str:
    """What is wrong with one value, said as the project's readers say it."""
    kind, value = problem["type"], problem.get("input")
    shown = _show(value)
    context = problem.get("ctx") or {}
    if kind == "missing":
        return "missing"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return f"expected an integer, got {shown}"
    if kind in ("less_than_equal", "greater_than_equal") and isinstance(value, int):
        if value not in INT64:
            digits = len(str(abs(value)))
            return (
                "an integer out of range: it must fit in 64 bits (-2^63 to 2^63 - 1), got "
                f"{shown} ({digits} digits)"
            )
        bound = context.get("ge", context.get("le"))
        side = ">=" if kind == "greater_than_equal" else "<="
        return f"expected an integer {side} {bound}, got {shown}"
    if kind == "bool_type":
        return f"expected true or false, got {shown}"
    if kind == "string_type":
        return f"expected a string, got {shown}"
    if kind in ("float_type", "float_parsing") and type(value) is int:  # beyond a float's range
        return f"a number out of range: it must be a finite float, got {shown}"
    if kind in ("float_type", "float_parsing"):
        return f"expected a number, got {shown}"
    if kind == "finite_number":
        return f"a number out of range: it must be a finite float, got {shown}"
    if kind in ("tuple_type", "list_type"):
        return f"expected a list, got {shown}"
    if kind in ("dict_type", "dataclass_type", "model_type", "dataclass_args_type"):
        return f"expected an object, got {shown}"
    if kind in ("enum", "literal_error"):
        return f"unknown value {shown}: choose from {context.get('expected')}"
    if kind == "value_error":
        error = context.get("error")
        return (
            str(error) if error is not None else str(problem["msg"]).removeprefix("Value error, ")
        )
    return str(problem["msg"])


def _show(value: object) -> str:
    """A short rendering of a value for messages."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
