r"""``LineSegmenter``: cut after every run of a delimiter (lines, paragraphs, separators).

A cut falls after a *run* of the delimiter, so a line keeps the delimiter that ends it and the
next line keeps its indentation:

- A delimiter made only of newline characters (``"\n"``, ``"\n\n"``, ``"\r\n"``) counts
  newlines. ``"\r\n"``, ``"\n"`` and a lone ``"\r"`` are one newline each, and a run is a stretch
  of newlines that may hold other whitespace between them (a line of spaces is a blank line). A
  run of at least as many newlines as the delimiter holds ends a piece: ``"\n\n"`` cuts at a
  blank line, and ``"a\n\n\nb"`` is ``["a\n\n\n", "b"]``.
- Any other delimiter is matched exactly. It is seen as ``k`` copies of its shortest repeating
  unit (``"--"`` is two ``"-"``), and a run is a stretch of back-to-back units; a run of at
  least ``k`` units ends a piece (``"---"`` with delimiter ``"--"`` is one run).

A piece always holds something besides whitespace and delimiter runs: delimiters at the start of
a text join the first piece, trailing ones join the last, and whitespace-only text is one piece.

Example:
    >>> LineSegmenter("\n\n").pieces("a\n\n\nb"), LineSegmenter().pieces("\n\na\r\n  b")
    (['a\n\n\n', 'b'], ['\n\na\r\n', '  b'])

"""

from __future__ import annotations

import regex

from llenvs.core.segmenters._base import FirstCut
from llenvs.core.segmenters._scanning import WHITESPACE, ScanningSegmenter, first_non_whitespace
from llenvs.core.segmenters._spec_fields import escape_field

__all__ = ["LineSegmenter"]

_NEWLINE_CHARS = "\r\n"
_BLANK = "".join(char for char in WHITESPACE if char not in _NEWLINE_CHARS)
_NEWLINE = r"(?:\r\n|\r|\n)"
_NEWLINE_RUN = regex.compile(rf"{_NEWLINE}(?:[{regex.escape(_BLANK)}]*{_NEWLINE})*")


def _count_newlines(text: str) -> int:
    r"""Newlines in ``text``, counting ``"\r\n"`` once."""
    return text.count("\n") + text.count("\r") - text.count("\r\n")


def _repeating_unit(text: str) -> str:
    """The shortest string whose repetition is ``text``."""
    for size in range(1, len(text) + 1):
        if len(text) % size == 0 and text[:size] * (len(text) // size) == text:
            return text[:size]
    return text  # pragma: no cover - size == len(text) always returns above


class LineSegmenter(ScanningSegmenter):
    r"""Cut after every run of ``delimiter`` (``"\n"`` lines, ``"\n\n"`` paragraphs).

    Example:
        >>> LineSegmenter().segment("first\n  second\n")
        ['first', 'second']
        >>> LineSegmenter("\n\n").pieces("a\nb\n\n  c")
        ['a\nb\n\n', '  c']
        >>> LineSegmenter("")
        Traceback (most recent call last):
        ...
        ValueError: LineSegmenter needs a non-empty delimiter, got ''

    """

    def __init__(self, delimiter: str = "\n") -> None:
        if not isinstance(delimiter, str):
            raise TypeError(
                f"LineSegmenter delimiter must be a str, got {type(delimiter).__name__}"
            )
        if not delimiter:
            raise ValueError("LineSegmenter needs a non-empty delimiter, got ''")
        self._delimiter = delimiter
        self._unit = ""
        if set(delimiter) <= set(_NEWLINE_CHARS):
            self._run = _NEWLINE_RUN
            self._run_chars = frozenset(WHITESPACE)
            self._min_count = _count_newlines(delimiter)
        else:
            self._unit = _repeating_unit(delimiter)
            self._run = regex.compile(f"(?:{regex.escape(self._unit)})+")
            self._run_chars = frozenset(self._unit)
            self._min_count = len(delimiter) // len(self._unit)

    @property
    def delimiter(self) -> str:
        """The delimiter this segmenter cuts after."""
        return self._delimiter

    @property
    def spec(self) -> str:
        r"""``"line"`` for ``"\n"``, else ``"line:"`` and the escaped delimiter.

        Example:
            >>> LineSegmenter().spec, LineSegmenter("\n\n").spec
            ('line', 'line:\\n\\n')

        """
        if self._delimiter == "\n":
            return "line"
        return "line:" + escape_field(self._delimiter)

    def scan(self, buffer: str, resume: int = 0, *, final: bool = False) -> FirstCut:
        r"""Find the end of the first run that ends a piece (see ``ScanningSegmenter.scan``).

        Example:
            >>> LineSegmenter().scan("a\n  ", final=False), LineSegmenter().scan("a\n b")
            (FirstCut(end=None, settled=2), FirstCut(end=2, settled=2))

        """
        content = self._content_start(buffer)
        start = resume
        while start > 0 and buffer[start - 1] in self._run_chars:
            start -= 1
        for run in self._run.finditer(buffer, start):
            run_start, end = run.span()
            if content is None or content >= run_start:
                continue  # only whitespace and delimiters before it: it joins the next piece
            long_enough = self._count(run.group()) >= self._min_count
            if final:
                if long_enough and self._content_after(buffer, end, final=True):
                    return FirstCut(end, end)
                continue
            complete = self._complete(buffer, end)
            if complete and not long_enough:
                continue
            if not complete or not self._content_after(buffer, end, final=False):
                return FirstCut(None, end)  # the cut, if any, falls at the end of this run
            return FirstCut(end, end)
        return FirstCut(None, len(buffer))

    def _count(self, run: str) -> int:
        """How many delimiter units (or newlines) a run holds."""
        if self._unit:
            return len(run) // len(self._unit)
        return _count_newlines(run)

    def _complete(self, buffer: str, end: int) -> bool:
        """Whether the run ending at ``end`` can no longer grow, whatever text follows."""
        if not self._unit:  # spaces and newlines may still follow until something else does
            return first_non_whitespace(buffer, end) is not None
        tail = buffer[end : end + len(self._unit)]
        return len(tail) == len(self._unit) or not self._unit.startswith(tail)

    def _content_after(self, buffer: str, end: int, *, final: bool) -> bool:
        """Whether ``buffer[end:]`` holds something besides whitespace and delimiter runs.

        While the buffer may grow, a character counts only once no unit of the delimiter that
        would cover it can still be completing.
        """
        if not self._unit:
            return first_non_whitespace(buffer, end) is not None
        position = end
        for run in self._run.finditer(buffer, end):
            found = first_non_whitespace(buffer, position, run.start())
            if found is not None:
                return True  # a whole run follows it, so it is not part of one
            position = run.end()
        found = first_non_whitespace(buffer, position)
        return found is not None and (final or found + len(self._unit) <= len(buffer))

    def _content_start(self, buffer: str) -> int | None:
        """First non-whitespace character that is not part of a delimiter run, or None."""
        if not self._unit:
            return first_non_whitespace(buffer)  # newline runs are whitespace themselves
        position = 0
        for run in self._run.finditer(buffer):
            found = first_non_whitespace(buffer, position, run.start())
            if found is not None:
                return found
            position = run.end()
        return first_non_whitespace(buffer, position)
