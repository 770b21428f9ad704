r"""Strict parsing of one line of a JSON Lines file: the rules every trace and import reader keeps.

A line is UTF-8 text holding one JSON value (RFC 8259). Accepted: a byte-order mark at the start
of line 1 (dropped), CRLF line ends, any JSON whitespace. Refused, with the reason: bytes that
are not UTF-8 (the byte and its column are named), NUL bytes, a byte-order mark on any other
line, text that is not JSON, ``NaN`` / ``Infinity`` / ``-Infinity`` (Python writes them, JSON
has no such numbers; our writers never write them) and numbers too large for a float (``1e400``),
a key twice in one object (which value was meant?), a lone UTF-16 surrogate escape (``"\ud800"``:
not Unicode text, and it could not be written back as UTF-8), and nesting deeper than Python's
parser goes (about 1,000 levels; a ``RecursionError`` never escapes).

Example:
    >>> parse_json_line(b'\xef\xbb\xbf{"a": [1, 2.5]}\r\n', first=True)
    {'a': [1, 2.5]}
    >>> parse_json_line(b'{"a": NaN}\n')
    Traceback (most recent call last):
    ...
    llenvs.core._json_line.JsonLineError: not JSON: NaN is not a JSON number (JSON has no NaN or Infinity)

"""  # noqa: E501

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["BOM", "JsonLineError", "parse_json_line", "parse_json_text"]

BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte-order mark, accepted (and dropped) at the start of a file only."""

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""A ``\\uD800``-``\\uDFFF`` escape: where a lone surrogate can come from (checked further)."""


class JsonLineError(ValueError):
    """Why a line is not a JSON value this library reads (``str(error)`` is the reason).

    Example:
        >>> str(JsonLineError("duplicate key 'a' in one object"))
        "duplicate key 'a' in one object"

    """


def parse_json_line(raw: bytes, *, first: bool = False) -> Any:
    r"""The JSON value of one line (its bytes, line end included or not); ``first``: line 1.

    Raises ``JsonLineError`` with the reason when the line breaks a rule of the module.

    Example:
        >>> parse_json_line(b'"caf\xc3\xa9"\n')
        'café'
        >>> parse_json_line(b'"caf\xff"\n')
        Traceback (most recent call last):
        ...
        llenvs.core._json_line.JsonLineError: not UTF-8 text (byte 0xff at column 5)
        >>> parse_json_line(b'{"a": 1, "a": 2}')
        Traceback (most recent call last):
        ...
        llenvs.core._json_line.JsonLineError: duplicate key 'a' in one object

    """
    if raw.startswith(BOM):
        if not first:
            raise JsonLineError(
                "a byte-order mark (U+FEFF) starts this line; only line 1 may have one "
                "(were files joined together?)"
            )
        raw = raw[len(BOM) :]
    if b"\x00" in raw:
        column = raw.index(b"\x00") + 1
        what = (
            "a zero-filled block, such as a crash can leave"
            if not raw.strip(b"\x00\r\n")
            else "binary data, not a line of JSON text"
        )
        raise JsonLineError(f"NUL bytes (0x00, first at column {column}): {what}")
    raw = raw.removesuffix(b"\n").removesuffix(b"\r")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        byte = raw[error.start]
        raise JsonLineError(
            f"not UTF-8 text (byte 0x{byte:02x} at column {error.start + 1})"
        ) from None
    return parse_json_text(text)


def parse_json_text(text: str) -> Any:
    r"""The JSON value of ``text`` under this module's rules (no BOM, no NUL checks: text level).

    The value is parsed by the C parser, then written back once (also in C) to check it: a
    number that read as infinity, a lone surrogate, and a key given twice (the colons of the
    text and of the value written back differ) are found without a Python call per object.

    Example:
        >>> parse_json_text('[1e400]')  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.core._json_line.JsonLineError: not JSON: a number too large for a float (it would...
        >>> parse_json_text('{"a": {"b": 1, "b": 2}}')
        Traceback (most recent call last):
        ...
        llenvs.core._json_line.JsonLineError: duplicate key 'b' in one object
        >>> parse_json_text('{"a\\u003a": 1}')  # an escaped colon in a key: no duplicate
        {'a:': 1}
        >>> parse_json_text("[" * 100_000)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.core._json_line.JsonLineError: nested too deeply...

    """
    value = _loads(text)
    try:
        written = _WRITER.encode(value)
    except ValueError:  # a float literal beyond the float range reads as infinity
        raise JsonLineError(
            "not JSON: a number too large for a float (it would read as infinity)"
        ) from None
    except RecursionError:
        raise JsonLineError(_TOO_DEEP) from None
    if written.count(":") != text.count(":") or _ESCAPED_COLON.search(text) is not None:
        _loads(text, object_pairs_hook=_unique_keys)  # names the key given twice, if one is
    if _SURROGATE_ESCAPE.search(text) is not None:
        try:
            written.encode("utf-8")
        except UnicodeEncodeError as error:
            code = ord(error.object[error.start])
            raise JsonLineError(
                f"a lone surrogate escape (\\u{code:04x}) is not Unicode text"
            ) from None
    return value


_WRITER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, check_circular=False)
"""Writes a parsed value back, for the checks (a parsed value has no cycles to look for)."""

_TOO_DEEP = "nested too deeply (more levels than Python's JSON parser handles)"

_ESCAPED_COLON = re.compile(r"\\u003[aA]")
"""A colon written as an escape: the quick duplicate-key check cannot count it."""


def _loads(text: str, **hooks: Any) -> Any:
    """``json.loads`` with NaN and Infinity refused and every failure a ``JsonLineError``."""
    try:
        return json.loads(text, parse_constant=_no_constant, **hooks)
    except RecursionError:
        raise JsonLineError(_TOO_DEEP) from None
    except JsonLineError:
        raise
    except json.JSONDecodeError as error:
        where = f"line {error.lineno} column {error.colno}" if error.lineno > 1 else ""
        where = where or f"column {error.colno}"  # one line: its column says where
        raise JsonLineError(f"not JSON: {error.msg} ({where})") from None
    except ValueError as error:  # an integer of over 4,300 digits
        raise JsonLineError(f"not JSON: {error}") from None


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's dict; a key given twice is refused."""
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise JsonLineError(f"duplicate key {_short(key)} in one object")
            seen.add(key)
    return found


def _no_constant(name: str) -> Any:
    """``NaN``, ``Infinity``, ``-Infinity``: refused."""
    raise JsonLineError(f"not JSON: {name} is not a JSON number (JSON has no NaN or Infinity)")


def _short(text: str) -> str:
    """A string for a message, cut to 40 characters."""
    shown = repr(text)
    return shown if len(shown) <= 40 else shown[:37] + "..."
