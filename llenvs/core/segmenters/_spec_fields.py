r"""The fields of a segmenter spec string, and how they are escaped.

A spec is a name followed by ``:``-separated fields (``line:\n\n``, ``pattern:A:B``); a composite
joins its children's specs with ``+``. Inside a field a backslash escapes the characters that
would otherwise end it, and writes the usual control characters:

=========  =====================
written    means
=========  =====================
``\\``     one backslash
``\:``     ``:``
``\+``     ``+``
``\n``     newline
``\r``     carriage return
``\t``     tab
=========  =====================

Any other backslash pair is kept as it is, so regular-expression escapes such as ``\d`` or ``\s``
need no doubling, and a real newline may be written as itself. ``escape_field`` writes the
canonical form (every backslash doubled, control characters spelled out), so
``unescape_field(escape_field(s)) == s`` for every string.

Example:
    >>> escape_field("\n\n"), unescape_field(r"\n\n") == unescape_field("\n\n") == "\n\n"
    ('\\n\\n', True)
    >>> split_unescaped(r"line:\n\n+pattern:\d\+[.\:]", "+")
    ['line:\\n\\n', 'pattern:\\d\\+[.\\:]']

"""

from __future__ import annotations

__all__ = ["escape_field", "split_unescaped", "unescape_field"]

_ESCAPE = {"\\": "\\\\", ":": "\\:", "+": "\\+", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_UNESCAPE = {"\\": "\\", ":": ":", "+": "+", "n": "\n", "r": "\r", "t": "\t"}


def escape_field(text: str) -> str:
    r"""The canonical spelling of ``text`` as one spec field.

    Example:
        >>> print(escape_field("a:b+c\\d\n"))
        a\:b\+c\\d\n

    """
    return "".join(_ESCAPE.get(char, char) for char in text)


def unescape_field(field: str) -> str:
    r"""The text a spec field stands for (the inverse of ``escape_field``).

    Example:
        >>> unescape_field(r"a\:b\+c\\d\n") == "a:b+c\\d\n", unescape_field(r"\d+\s")
        (True, '\\d+\\s')

    """
    out: list[str] = []
    index = 0
    while index < len(field):
        char = field[index]
        if char == "\\" and index + 1 < len(field):
            following = field[index + 1]
            out.append(_UNESCAPE.get(following, "\\" + following))
            index += 2
        else:
            out.append(char)
            index += 1
    return "".join(out)


def split_unescaped(text: str, separator: str) -> list[str]:
    r"""Split ``text`` at every ``separator`` character that no backslash escapes.

    The parts keep their escapes (unescape each with ``unescape_field``).

    Example:
        >>> split_unescaped(r"a:b\:c", ":")
        ['a', 'b\\:c']

    """
    parts: list[str] = []
    current: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            current.append(text[index : index + 2])
            index += 2
            continue
        if char == separator:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
        index += 1
    parts.append("".join(current))
    return parts
