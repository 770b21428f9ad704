r"""``ScanningSegmenter``: a segmenter defined by one scan for its first cut.

A scanning segmenter answers a single question, ``scan(buffer, resume, final=...)``: where does
the first span of ``buffer`` end? With ``final=False`` the buffer may still grow, so the answer
is given only once no continuation can change it (that is ``first_cut``); with ``final=True`` the
buffer is the whole rest of the text. ``spans`` cuts at the first cut, then scans the rest as a
fresh buffer, and so on, which is exactly what a stream does after each cut: streaming equals
replay (invariant 2) as soon as ``scan`` keeps its promise.

Whitespace means ``str.isspace`` everywhere (the same test ``check_spans`` and ``segment`` use).
A cut never leaves a piece that is whitespace only, so every scanner requires a non-whitespace
character before a cut and one after it.

Example:
    >>> from llenvs.core.segmenters._line import LineSegmenter
    >>> seg = LineSegmenter()
    >>> seg.scan("a\nb"), seg.scan("a\n").end, seg.scan("a\n", final=True)
    (FirstCut(end=2, settled=2), None, FirstCut(end=None, settled=2))

"""

from __future__ import annotations

from abc import abstractmethod

import regex

from llenvs.core.segmenters._base import FirstCut, Segmenter

__all__ = ["NON_WHITESPACE", "WHITESPACE", "ScanningSegmenter", "first_non_whitespace"]

WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
"""Every character for which ``str.isspace`` is true (regex ``\\s`` misses ``\\x1c``-``\\x1f``)."""

NON_WHITESPACE = regex.compile("[^" + regex.escape(WHITESPACE) + "]")
"""Matches one character that is not whitespace."""

_FIRST_WINDOW = 256


def first_non_whitespace(text: str, start: int = 0, end: int | None = None) -> int | None:
    """Index of the first non-whitespace character in ``text[start:end]``, or None.

    Example:
        >>> first_non_whitespace("  a b"), first_non_whitespace("  a ", 3)
        (2, None)
        >>> first_non_whitespace("  a", 0, 2) is None
        True

    """
    found = NON_WHITESPACE.search(text, start, len(text) if end is None else end)
    return None if found is None else found.start()


class ScanningSegmenter(Segmenter):
    """A segmenter whose spans are found by repeating one first-cut scan.

    Subclasses implement ``scan``. ``first_cut`` is ``scan`` on a buffer that may grow, and
    ``spans`` restarts ``scan`` on the rest after every cut (in growing windows, so a long text
    is scanned in linear time).

    Example:
        >>> from llenvs.core.segmenters._sentence import SentenceSegmenter
        >>> SentenceSegmenter().spans("One. Two.")
        [(0, 5), (5, 9)]

    """

    @abstractmethod
    def scan(self, buffer: str, resume: int = 0, *, final: bool = False) -> FirstCut:
        """Find where the first span of ``buffer`` ends.

        With ``final=False`` the buffer may still grow: ``end`` is given only once no
        continuation can move it (the contract of ``first_cut``). With ``final=True`` the
        buffer is the whole rest of a text: ``end`` is the first cut, or None when the buffer is
        a single span. In both modes ``settled`` bounds every cut from below, and ``resume`` may
        be any position up to a ``settled`` that an earlier scan of a prefix of ``buffer``
        returned (or that another segmenter's scan returned, when it is smaller): the answer does
        not depend on it.
        """

    def first_cut(self, buffer: str, resume: int = 0) -> FirstCut:
        """Decide, if the buffer allows, where the first span of ``buffer`` ends.

        Example:
            >>> from llenvs.core.segmenters._sentence import SentenceSegmenter
            >>> SentenceSegmenter().first_cut("Hi. Yo")
            FirstCut(end=4, settled=4)

        """
        return self.scan(buffer, min(max(resume, 0), len(buffer)), final=False)

    def spans(self, text: str) -> list[tuple[int, int]]:
        r"""Contiguous, non-empty ``(start, end)`` spans covering ``[0, len(text))``.

        Example:
            >>> from llenvs.core.segmenters._line import LineSegmenter
            >>> LineSegmenter().spans("a\nb"), LineSegmenter().spans("")
            ([(0, 2), (2, 3)], [])

        """
        result: list[tuple[int, int]] = []
        start = 0
        while start < len(text):
            end = start + self._first_end(text, start)
            result.append((start, end))
            start = end
        return result

    def _first_end(self, text: str, start: int) -> int:
        """Length of the first span of ``text[start:]``, scanned in growing windows."""
        window = _FIRST_WINDOW
        resume = 0
        while start + window < len(text):
            cut = self.scan(text[start : start + window], resume, final=False)
            if cut.end is not None:
                return cut.end
            resume = cut.settled
            window *= 2
        rest = text[start:]
        cut = self.scan(rest, min(resume, len(rest)), final=True)
        return len(rest) if cut.end is None else cut.end
