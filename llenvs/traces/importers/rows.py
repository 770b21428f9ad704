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

__all__ = ["Row", "read_rows"]


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
    one row. A line that is not UTF-8 text or not JSON gives a row with ``error`` set, so callers
    can skip and report it while the rest loads.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "doc.json")
        >>> _ = open(path, "w").write('[\n {"a": 1},\n {"a": 2}\n]\n')
        >>> [row.data["a"] for row in read_rows(path)]
        [1, 2]

    """
    if _is_one_document(path):
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
        items = document if isinstance(document, list) else [document]
        for number, item in enumerate(items, start=1):
            yield Row(number, item)
        return
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                byte = raw[error.start]
                problem = f"byte 0x{byte:02x} at column {error.start + 1}"
                yield Row(number, None, f"not UTF-8 text ({problem})")
                continue
            try:
                yield Row(number, json.loads(text))
            except json.JSONDecodeError as error:
                yield Row(number, None, f"not JSON: {error}")


def _is_one_document(path: str | os.PathLike[str]) -> bool:
    """True when the first line alone is not JSON but the whole file is (a pretty document)."""
    with open(path, "rb") as handle:
        first = b""
        for raw in handle:
            if raw.strip():
                first = raw.strip()
                break
        if not first.startswith((b"{", b"[")):
            return False
        try:
            json.loads(first)
        except (UnicodeDecodeError, json.JSONDecodeError):
            handle.seek(0)
            try:
                json.loads(handle.read().decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                return False
            return True
        return False
