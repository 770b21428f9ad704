r"""Reading an outside file as numbered JSON rows: JSONL, or one JSON document.

Example:
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "rows.jsonl")
    >>> _ = open(path, "w").write('{"a": 1}\n\n{"a": 2}\n')
    >>> [(row.line, row.data) for row in read_rows(path)]
    [(1, {'a': 1}), (3, {'a': 2})]

"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from llenvs.core import BOM, JsonLineError, parse_json_line, parse_json_text
from llenvs.traces.records import TraceFormatError

__all__ = ["Row", "list_at", "object_at", "read_rows"]


@dataclass(frozen=True)
class Row:
    """One JSON value read from a file, with where it came from.

    Example:
        >>> Row(4, {"x": 1}).where("log.jsonl")
        'log.jsonl, line 4'

    """

    line: int
    """Line number (1-based) of a JSONL row; for one JSON document, the item's position."""
    data: Any
    """The parsed JSON value; ``None`` when the line was not JSON (see ``error``)."""
    error: str | None = None
    """Why the line could not be parsed, or None."""

    def where(self, path: str) -> str:
        """``path, line N``: how messages name this row.

        Example:
            >>> Row(1, None, "not JSON").where("a.jsonl")
            'a.jsonl, line 1'

        """
        return f"{path}, line {self.line}"


def read_rows(path: str | os.PathLike[str]) -> Iterator[Row]:
    r"""The rows of ``path``, lazily: one per non-blank JSONL line.

    A file whose first non-blank character opens one JSON document spanning several lines (a
    pretty-printed object or array) is read whole: an array gives one row per item, an object
    one row. Lines follow the rules of ``llenvs.core`` (a byte-order mark on line 1
    and CRLF line ends are fine); a line that breaks them (not UTF-8, NUL bytes, not JSON, NaN
    or Infinity, a duplicate key, nested too deep, ...) gives a row with ``error`` set, so
    callers can skip and report it while the rest loads.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "doc.json")
        >>> _ = open(path, "w").write('[\n {"a": 1},\n {"a": 2}\n]\n')
        >>> [row.data["a"] for row in read_rows(path)]
        [1, 2]
        >>> _ = open(path, "wb").write(b'{"a": 1}\r\n{"a": NaN}\r\n')
        >>> [(row.line, row.error) for row in read_rows(path)]  # doctest: +ELLIPSIS
        [(1, None), (2, 'not JSON: NaN is not a JSON number ...')]

    """
    document = _one_document(path)
    if document is not None:
        yield from document
        return
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.removeprefix(BOM if number == 1 else b"").strip():
                continue
            try:
                yield Row(number, parse_json_line(raw, first=number == 1))
            except JsonLineError as error:
                cut = "" if raw.endswith(b"\n") else "last line cut short (no newline): "
                yield Row(number, None, f"{cut}{error}")


def _one_document(path: str | os.PathLike[str]) -> list[Row] | None:
    """The rows of a file that holds one JSON document over several lines; None for JSONL.

    It is one document when its first non-blank line, which opens an object or an array, is not
    JSON alone but the whole file is (by Python's lenient reading: a document that then breaks
    a rule, a NaN say, gives one row naming why, rather than a complaint per line).
    """
    with open(path, "rb") as handle:
        first, start = b"", 1
        for number, raw in enumerate(handle, start=1):
            body = raw.removeprefix(BOM) if number == 1 else raw
            if body.strip():
                first, start = body.strip(), number
                break
        if not first.startswith((b"{", b"[")):
            return None
        try:
            parse_json_line(first)
        except JsonLineError:
            pass
        else:
            return None  # the first line is a JSON value of its own: JSON Lines
        handle.seek(0)
        whole = handle.read().removeprefix(BOM)
    try:
        text = whole.decode("utf-8")
    except UnicodeDecodeError:
        return None
    try:
        document = parse_json_text(text)
    except JsonLineError as error:
        if not _lenient_json(text):
            return None
        return [Row(start, None, f"the JSON document starting here: {error}")]
    items = document if isinstance(document, list) else [document]
    return [Row(number, item) for number, item in enumerate(items, start=1)]


def _lenient_json(text: str) -> bool:
    """True when Python's own (lenient) JSON reading accepts ``text``."""
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def object_at(value: object, where: str) -> dict[str, Any]:
    """``value`` when it is a JSON object, else a ``TraceFormatError`` naming ``where``.

    Example:
        >>> object_at("x", "response.body")
        Traceback (most recent call last):
        ...
        llenvs.traces.TraceFormatError: 'response.body' must be an object, got a string

    """
    if not isinstance(value, dict):
        raise TraceFormatError(f"{where!r} must be an object, got {_kind(value)}")
    return value


def list_at(value: object, where: str) -> list[Any]:
    """``value`` when it is a JSON array, else a ``TraceFormatError`` naming ``where``.

    Example:
        >>> list_at({"a": 1}, "choices")
        Traceback (most recent call last):
        ...
        llenvs.traces.TraceFormatError: 'choices' must be a list, got an object

    """
    if not isinstance(value, list):
        raise TraceFormatError(f"{where!r} must be a list, got {_kind(value)}")
    return value


def _kind(value: object) -> str:
    """The JSON kind of a value, with its article, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"
