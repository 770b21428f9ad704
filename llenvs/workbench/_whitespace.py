r"""Whitespace made visible (the raw views), and texts that differ in nothing else told apart.

Example:
    >>> visible_whitespace("a b\tc\n")
    'a·b→c↵\n'

"""

from __future__ import annotations

__all__ = ["one_line", "only_whitespace_differs", "visible_whitespace"]

_MARKS = {" ": "·", "\t": "→", "\r": "␍", "\u00a0": "⍽"}


def visible_whitespace(text: str) -> str:
    r"""``text`` with spaces, tabs and newlines marked (newlines kept after their mark).

    Example:
        >>> visible_whitespace("x\r\n")
        'x␍↵\n'

    """
    marked = "".join(_MARKS.get(char, char) for char in text)
    return marked.replace("\n", "↵\n")


def one_line(text: str, limit: int = 200) -> str:
    r"""``text`` on one line (newlines shown as ↵), cut to ``limit`` characters.

    Example:
        >>> one_line("a\n\nb"), one_line("abcdef", 3)
        ('a↵↵b', 'ab…')

    """
    flat = text.replace("\r", "").replace("\n", "↵")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def only_whitespace_differs(a: str, b: str) -> bool:
    r"""Whether ``a`` and ``b`` differ, but only in whitespace (spaces, tabs, newlines).

    Example:
        >>> only_whitespace_differs("So 12.\n", "So 12. "), only_whitespace_differs("a", "a")
        (True, False)
        >>> only_whitespace_differs("So 12.", "So 13.")
        False

    """
    return a != b and "".join(a.split()) == "".join(b.split())
