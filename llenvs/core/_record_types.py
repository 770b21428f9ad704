"""The field types of a declared record, and how a record says it is one.

A record (``llenvs.core.read_record`` reads it) is a frozen dataclass with ``__pydantic_config__
= RECORD`` whose fields are of these types: ``Int64``, ``Count``, ``Text``, ``Flag``, ``Number``,
tuples, mappings and other records of them; ``Coded`` for a value that reads and writes its own
JSON, ``SortedValues`` for a set of enumeration members, ``omit_when_empty`` for a field written
only when it has content. Each type gives pydantic its rule only when a converter is first built,
so declaring a record imports nothing of pydantic.

Example:
    >>> from dataclasses import dataclass
    >>> from llenvs.core import read_record
    >>> @dataclass(frozen=True)
    ... class Step:
    ...     __pydantic_config__ = RECORD
    ...     index: Count
    >>> read_record(Step, {"index": 3})
    Step(index=3)

"""

import dataclasses
import typing
from collections.abc import Callable, Mapping
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema

__all__ = [
    "HERE",
    "INT64",
    "RECORD",
    "Coded",
    "Count",
    "Flag",
    "Int64",
    "Number",
    "Positive",
    "SortedValues",
    "Text",
    "computed",
    "omit_when_empty",
    "variant",
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
        self, source: Any, handler: "GetCoreSchemaHandler"
    ) -> "CoreSchema":
        schema: dict[str, Any] = {**handler(source), "strict": True, **self.bounds}
        return schema


Int64 = Annotated[int, _Exactly(ge=INT64.start, le=INT64.stop - 1)]
"""An integer that fits in 64 bits (booleans refused)."""
Count = Annotated[int, _Exactly(ge=0, le=INT64.stop - 1)]
"""An integer >= 0 that fits in 64 bits."""
Positive = Annotated[int, _Exactly(ge=1, le=INT64.stop - 1)]
"""An integer >= 1 that fits in 64 bits."""
Text = Annotated[str, _Exactly()]
"""A string."""
Flag = Annotated[bool, _Exactly()]
"""``true`` or ``false``, nothing else."""
Number = Annotated[float, _Exactly(allow_inf_nan=False)]
"""A finite number, read as a float."""

HERE = "\x1f"
"""The path a ``Coded`` field's reader is given: its messages name the field's real path where it
stands (``trace.run.spec: unknown field(s): modle``), however deep the field is read."""


class Coded:
    """A field type that reads and writes its own JSON (a run spec, an intervention).

    ``read(value, where)`` (or ``read(value)`` when ``where=False``) builds the value or raises
    ``TypeError``/``ValueError``; ``write(value)`` gives its JSON. ``title`` names it in the
    JSON schema (the file-format pages).

    Example:
        >>> from dataclasses import dataclass
        >>> from llenvs.core import read_record, record_dict
        >>> def parse(value, where):
        ...     if not isinstance(value, str) or ":" not in value:
        ...         raise ValueError(f"{where}: expected 'name:number', got {value!r}")
        ...     return tuple(value.split(":"))
        >>> @dataclass(frozen=True)
        ... class Pair:
        ...     __pydantic_config__ = RECORD
        ...     pair: Annotated[tuple[str, str], Coded(parse, ":".join, "name:number")]
        >>> read_record(Pair, {"pair": "a:1"}).pair, record_dict(Pair(("a", "1")))
        (('a', '1'), {'pair': 'a:1'})
        >>> read_record(Pair, {"pair": "a"}, "p")
        Traceback (most recent call last):
        ...
        llenvs.core.errors.RecordFormatError: p.pair: expected 'name:number', got 'a'

    """

    def __init__(
        self,
        read: Callable[..., Any],
        write: Callable[[Any], Any],
        title: str,
        *,
        where: bool = True,
    ) -> None:
        self.read, self.write, self.title, self.where = read, write, title, where

    def _validate(self, value: object) -> Any:
        try:
            return self.read(value, HERE) if self.where else self.read(value)
        except (TypeError, ValueError) as error:
            raise ValueError(str(error)) from None

    def __get_pydantic_core_schema__(
        self, source: Any, handler: "GetCoreSchemaHandler"
    ) -> "CoreSchema":
        from pydantic_core import core_schema

        return core_schema.no_info_plain_validator_function(
            self._validate,
            serialization=core_schema.plain_serializer_function_ser_schema(self.write),
            metadata={
                "pydantic_js_functions": [lambda *_: {"type": "object", "x-record": self.title}]
            },
        )


class SortedValues:
    """A set of enumeration members, written as the sorted list of their values.

    Example:
        >>> from dataclasses import dataclass
        >>> from enum import Enum
        >>> from llenvs.core import read_record, record_dict
        >>> class Mark(Enum):
        ...     A = "a"
        ...     B = "b"
        >>> @dataclass(frozen=True)
        ... class Marked:
        ...     __pydantic_config__ = RECORD
        ...     marks: Annotated[frozenset[Mark], SortedValues()]
        >>> record_dict(Marked(frozenset({Mark.B, Mark.A})))
        {'marks': ['a', 'b']}
        >>> read_record(Marked, {"marks": ["c"]}, "m")
        Traceback (most recent call last):
        ...
        llenvs.core.errors.RecordFormatError: m.marks[0]: unknown value 'c': choose from 'a' or 'b'

    """

    def __get_pydantic_core_schema__(
        self, source: Any, handler: "GetCoreSchemaHandler"
    ) -> "CoreSchema":
        from pydantic_core import core_schema

        schema: dict[str, Any] = dict(handler(source))
        schema["serialization"] = core_schema.plain_serializer_function_ser_schema(
            lambda members: sorted(member.value for member in members),
            return_schema=core_schema.list_schema(core_schema.str_schema()),
        )
        return schema


def omit_when_empty(*names: str) -> Any:
    """A record's ``__get_pydantic_core_schema__``: ``names`` left out of its JSON while empty.

    For a field added in a later schema version, written only when it has content.

    Example:
        >>> from collections.abc import Mapping
        >>> from dataclasses import dataclass, field
        >>> from llenvs.core import record_dict
        >>> @dataclass(frozen=True)
        ... class Step:
        ...     __pydantic_config__ = RECORD
        ...     __get_pydantic_core_schema__ = omit_when_empty("notes")
        ...     text: Text
        ...     notes: Mapping[str, Any] = field(default_factory=dict)
        >>> record_dict(Step("a")), record_dict(Step("a", {"n": 1}))
        ({'text': 'a'}, {'text': 'a', 'notes': {'n': 1}})

    """

    def schema(cls: type, source: Any, handler: "GetCoreSchemaHandler") -> "CoreSchema":
        built = handler(source)
        for item in _dataclass_schema(built)["schema"]["fields"]:
            if item["name"] in names:
                item["serialization_exclude_if"] = _empty
        return built

    return classmethod(schema)


def computed(check: Callable[[Any, Mapping[str, Any]], None]) -> Any:
    """A record's ``__get_pydantic_core_schema__`` for the fields it computes (``init=False``).

    They are written in its JSON; reading leaves them out of the record's arguments, builds the
    record, then gives ``check(record, recorded)`` what the JSON held for them (``recorded``:
    by name, only those present), to refuse a recorded value that is not the computed one.

    Example:
        >>> from dataclasses import dataclass, field
        >>> from llenvs.core import read_record, record_dict
        >>> def same(record, recorded):
        ...     if recorded.get("size", record.size) != record.size:
        ...         raise ValueError(f"size: {recorded['size']} is not the text's length")
        >>> @dataclass(frozen=True)
        ... class Sized:
        ...     __pydantic_config__ = RECORD
        ...     __get_pydantic_core_schema__ = computed(same)
        ...     text: Text
        ...     size: int = field(init=False)
        ...     def __post_init__(self):
        ...         object.__setattr__(self, "size", len(self.text))
        >>> record_dict(Sized("abc")), read_record(Sized, {"text": "ab"}).size
        ({'text': 'abc', 'size': 3}, 2)
        >>> read_record(Sized, {"text": "ab", "size": 3}, "s")
        Traceback (most recent call last):
        ...
        llenvs.core.errors.RecordFormatError: s.size: 3 is not the text's length

    """

    def schema(cls: type, source: Any, handler: "GetCoreSchemaHandler") -> "CoreSchema":
        from pydantic_core import core_schema

        names = [item.name for item in dataclasses.fields(cls) if not item.init]
        hints = typing.get_type_hints(cls)
        built = handler(source)
        _dataclass_schema(built)["schema"]["computed_fields"] = [
            core_schema.computed_field(name, handler.generate_schema(hints[name])) for name in names
        ]

        def read(value: Any, validate: Callable[[Any], Any]) -> Any:
            recorded: dict[str, Any] = {}
            if isinstance(value, dict):
                recorded = {name: value[name] for name in names if name in value}
                value = {key: item for key, item in value.items() if key not in recorded}
            record = validate(value)
            check(record, recorded)
            return record

        return core_schema.no_info_wrap_validator_function(read, built)

    return classmethod(schema)


def variant(tag: str, fields_of: Callable[[Any], tuple[str, ...]]) -> Any:
    """A record's ``__get_pydantic_core_schema__``: the fields it holds depend on its ``tag``.

    ``fields_of(tag value)`` names the fields a record of that kind may hold (its tag first);
    reading refuses any other one, listing those, and writing leaves out the others and any
    field that is None or empty (a model spec's provider, a PRM spec's kind).

    Example:
        >>> from dataclasses import dataclass
        >>> from llenvs.core import read_record, record_dict
        >>> def fields_of(kind):
        ...     return ("kind", "url") if kind == "served" else ("kind",)
        >>> @dataclass(frozen=True)
        ... class Model:
        ...     __pydantic_config__ = RECORD
        ...     __get_pydantic_core_schema__ = variant("kind", fields_of)
        ...     kind: Text
        ...     url: Text | None = None
        >>> record_dict(Model("local")), record_dict(Model("served", "http://h"))
        ({'kind': 'local'}, {'kind': 'served', 'url': 'http://h'})
        >>> read_record(Model, {"kind": "local", "url": "http://h"}, "model")
        Traceback (most recent call last):
        ...
        llenvs.core.errors.RecordFormatError: model: unknown field(s): url: choose from kind

    """

    def schema(cls: type, source: Any, handler: "GetCoreSchemaHandler") -> "CoreSchema":
        from pydantic_core import core_schema

        built = handler(source)
        tag_type = typing.get_type_hints(cls)[tag]
        enumerated = isinstance(tag_type, type) and issubclass(tag_type, Enum)

        def read(value: Any, validate: Callable[[Any], Any]) -> Any:
            if isinstance(value, dict) and tag in value:
                try:
                    known = fields_of(tag_type(value[tag]) if enumerated else value[tag])
                except (TypeError, ValueError):
                    return validate(value)  # the record's own reading names the bad tag
                unknown = sorted(key for key in value if key not in known)
                if unknown:
                    raise ValueError(
                        f"unknown field(s): {', '.join(unknown)}: choose from {', '.join(known)}"
                    )
            return validate(value)

        def write(record: Any, serialize: Callable[[Any], Any]) -> Any:
            known = fields_of(getattr(record, tag))
            return {
                key: value
                for key, value in serialize(record).items()
                if key in known and (key == tag or (value is not None and value != []))
            }

        _dataclass_schema(built)["serialization"] = core_schema.wrap_serializer_function_ser_schema(
            write
        )
        return core_schema.no_info_wrap_validator_function(read, built)

    return classmethod(schema)


def _dataclass_schema(built: Any) -> Any:
    """The dataclass schema inside a record's built schema (under its wrappers, if any)."""
    while built["type"] != "dataclass":
        built = built["schema"]
    return built


def _empty(value: object) -> bool:
    return not value


RECORD = {"extra": "forbid", "use_attribute_docstrings": True}
"""A record's ``__pydantic_config__``: unknown fields refused, each field described by its
docstring. A plain dict (pydantic's ``ConfigDict`` is one), so a record says it without
importing pydantic."""
