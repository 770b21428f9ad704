"""Records declared once: the field types a record declares, and the one converter for them all.

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
    Traceback (most recent call last):
    ...
    llenvs.core.errors.RecordFormatError: tally: unknown field(s): extra

"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from llenvs.core.errors import RecordFormatError

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler, TypeAdapter
    from pydantic_core import CoreSchema

__all__ = [
    "INT64",
    "RECORD",
    "Count",
    "Flag",
    "Int64",
    "Number",
    "Text",
    "read_record",
    "record_dict",
    "record_schema",
]

INT64 = range(-(2**63), 2**63)
"""The integers a record's integer fields may hold: 64 bits, as every reader of them stores them
(pandas, Arrow, numpy, torch); a larger one cannot be a real index, count or token id."""


class _Exactly:
    """A field type's rule for pydantic: the type itself, never coerced, within these bounds.

    Pydantic asks for it when a record's converter is first built, so declaring a record imports
    nothing of pydantic (``import llenvs.core`` stays as quick as before records were declared).
    """

    def __init__(self, **bounds: object) -> None:
        self.bounds = bounds

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        schema: dict[str, Any] = {**handler(source), "strict": True, **self.bounds}
        return schema


Int64 = Annotated[int, _Exactly(ge=INT64.start, le=INT64.stop - 1)]
"""An integer that fits in 64 bits (booleans refused)."""
Count = Annotated[int, _Exactly(ge=0, le=INT64.stop - 1)]
"""An integer >= 0 that fits in 64 bits."""
Text = Annotated[str, _Exactly()]
"""A string."""
Flag = Annotated[bool, _Exactly()]
"""``true`` or ``false``, nothing else."""
Number = Annotated[float, _Exactly(allow_inf_nan=False)]
"""A finite number, read as a float."""

Record = TypeVar("Record")

RECORD = {"extra": "forbid", "use_attribute_docstrings": True}
"""A record's ``__pydantic_config__``: unknown fields refused, each field described by its
docstring. A plain dict (pydantic's ``ConfigDict`` is one), so a record says it without
importing pydantic."""


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
        raise error(_message(invalid, where)) from None


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
    """The JSON schema of a record, each field described by its docstring (read from the source).

    Example:
        >>> from dataclasses import dataclass
        >>> @dataclass(frozen=True)
        ... class Step:
        ...     __pydantic_config__ = RECORD
        ...     index: Count
        >>> record_schema(Step)["properties"]["index"]["minimum"]
        0

    """
    schema: dict[str, Any] = _adapter(kind).json_schema()
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


def _message(invalid: Any, where: str) -> str:
    """The first problem of a validation, in the words every reader of the project's files uses."""
    unknown = [
        str(problem["loc"][-1])
        for problem in invalid.errors()
        if problem["type"] in ("unexpected_keyword_argument", "extra_forbidden")
    ]
    problem = invalid.errors()[0]
    path = ".".join([where, *_path(problem["loc"])]).replace(".[", "[")
    if unknown and problem["type"] in ("unexpected_keyword_argument", "extra_forbidden"):
        parent = path.rsplit(".", 1)[0]
        return f"{parent}: unknown field(s): {', '.join(sorted(unknown))}"
    return f"{path}: {_words(problem)}"


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
    if kind in ("float_type", "float_parsing"):
        return f"expected a number, got {shown}"
    if kind == "finite_number":
        return f"a number out of range: it must be a finite float, got {shown}"
    if kind in ("tuple_type", "list_type"):
        return f"expected a list, got {shown}"
    if kind in ("dict_type", "dataclass_type", "model_type", "dataclass_args_type"):
        return f"expected an object, got {shown}"
    if kind == "value_error":
        return str(problem["msg"]).removeprefix("Value error, ")
    return str(problem["msg"])


def _show(value: object) -> str:
    """A short rendering of a value for messages."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
