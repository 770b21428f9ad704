r"""List items and other Markdown blocks: sentence starts that need no end punctuation.

Two general rules of ``SentenceSegmenter`` live here:

* **A block start at a line start** begins a new sentence: a list marker (``1.``, ``2)``,
  ``(a)``, ``iv.``, ``-``, ``*``, ``+``, ``•``) or a Markdown heading (``#``) followed by a space,
  as the first thing on a line. ``"Steps:\n1. Add\n2. Divide"`` has three sentences.
* **An inline list** goes on: when a sentence starts with a list marker, the marker that follows
  it in the same style (``1.`` then ``2.``, ``a)`` then ``b)``, ``iv.`` then ``v.``) after
  whitespace starts the next item, with or without end punctuation before it. A number that
  merely ends a sentence (``The answer is 2. Next``) is not a list: its sentence does not start
  with ``1.``. A capital letter with a period (``J.``) starts no inline list: it is an initial
  as often (``J. K. Rowling``); ``A)`` and ``(A)`` do.

Example:
    >>> marker = list_item_marker("1. The first item 2. The second item", 0)
    >>> marker
    ListMarker(value='1', opening='', closing='.')
    >>> next_list_item("1. The first item 2. The second item", marker, 1)
    18
    >>> block_starts("x\n- item", 2, final=False)
    True

"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import regex

__all__ = ["ListMarker", "block_starts", "list_item_marker", "next_list_item"]

_BULLET = "[-*+•‣⁃]"
_MARKER = r"(?P<opening>\(?)(?P<value>\d{1,3}|[A-Za-z]|[ivx]{2,5}|[IVX]{2,5})(?P<closing>\.\)|[.)])"
_ITEM_START = regex.compile(rf"(?:[•‣⁃][^\S\r\n]?)?{_MARKER}(?=[^\S\r\n])")
_BLOCK_START = regex.compile(
    rf"(?:{_BULLET}|\#{{1,6}}|[•‣⁃]?\(?(?:\d{{1,3}}|[A-Za-z]|[ivx]{{2,5}}|[IVX]{{2,5}})(?:\.\)|[.)]))"
    r"[^\S\r\n]"
)
_ROMAN = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii", "xiii")


@dataclass(frozen=True)
class ListMarker:
    """A list marker such as ``1.``, ``(b)`` or ``iv)``: its value and the brackets around it.

    Example:
        >>> ListMarker("a", "(", ")").successors
        ('b',)

    """

    value: str
    """The number, letter or Roman numeral."""
    opening: str
    """``"("`` or ``""``."""
    closing: str
    """``"."``, ``")"`` or ``".)"``."""

    @property
    def successors(self) -> tuple[str, ...]:
        """The values the next item may carry (``i`` may be a letter or a Roman numeral)."""
        value = self.value
        found: list[str] = []
        if value.isdigit():
            found.append(str(int(value) + 1))
        elif len(value) == 1 and value.lower() != "z":
            found.append(chr(ord(value) + 1))
        roman = value.lower()
        if roman in _ROMAN[:-1]:
            following = _ROMAN[_ROMAN.index(roman) + 1]
            found.append(following if value.islower() else following.upper())
        return tuple(found)


def list_item_marker(text: str, index: int) -> ListMarker | None:
    """The list marker that starts at ``index`` (after an optional ``•``), if one does.

    Example:
        >>> list_item_marker("• 9. The first item", 0)
        ListMarker(value='9', opening='', closing='.')
        >>> list_item_marker("The answer is 2.", 0), list_item_marker("J. K. Rowling", 0)
        (None, None)

    """
    found = _ITEM_START.match(text, index)
    if found is None:
        return None
    marker = ListMarker(found.group("value"), found.group("opening"), found.group("closing"))
    if marker.value.isupper() and len(marker.value) == 1 and marker.closing == ".":
        return None if not marker.opening else marker  # "J. K. Rowling": initials
    return marker


def next_list_item(
    text: str, marker: ListMarker, start: int, before: int | None = None
) -> int | None:
    """Where the item after ``marker`` starts: its marker after whitespace, in ``[start, before)``.

    Example:
        >>> next_list_item("a) one c) two b) three", ListMarker("a", "", ")"), 1)
        14

    """
    limit = len(text) if before is None else before
    found = _successor_pattern(marker).search(text, start, min(len(text), limit + 16))
    return None if found is None or found.start() >= limit else int(found.start())


def block_starts(text: str, index: int, final: bool) -> bool | None:
    """Whether a list marker or a Markdown heading starts at ``index`` (the start of a line).

    None while the buffer ends before that is known (``"1"`` may become ``"1. Add"``).

    Example:
        >>> [block_starts(t, 0, final=False) for t in ("2. Add", "2.5 is", "## Sum", "-3", "2.")]
        [True, False, True, False, None]

    """
    found = _BLOCK_START.match(text, index, partial=True)
    if found is None:
        return False
    if found.partial:
        return False if final else None
    return True


@lru_cache(maxsize=256)
def _successor_pattern(marker: ListMarker) -> regex.Pattern[str]:
    values = "|".join(regex.escape(value) for value in marker.successors) or "(?!)"
    return regex.compile(
        rf"(?<=\s)(?:{_BULLET}[^\S\r\n]?)?{regex.escape(marker.opening)}(?:{values})"
        rf"{regex.escape(marker.closing)}(?=\s)"
    )
