r"""``PatternSegmenter``: cut where a regular expression marks the start of a step.

Every match of every pattern proposes a cut at its first non-whitespace character, so the
whitespace before a step stays with the step before it (a match of whitespace only proposes its
end). Patterns are compiled with ``MULTILINE``: ``^`` matches at the start of the text and after a
newline. A cut never falls at the start of a piece and never leaves a piece of whitespace only,
so a match at the start of the text (or of the rest after a cut) cuts nothing. Each match is tried
at every position independently (overlapping matches count), and after a cut the rest is searched
afresh, exactly as a stream sees it.

The default patterns (``DEFAULT_PATTERNS``) mark numbered steps at a line start (``1.``, ``2)``,
``(3)``), ``Step 1`` at a line or sentence start, and transition words that open a sentence or a
line (``Therefore,``, ``First,``, ``So``, ``Thus``, ``Hence``, ``Finally``, ``Next``, ``Wait``,
``Let me`` ...), with markdown bullets, headings and bold allowed before them.

Streaming: matches may change as text arrives (a lookahead that fails once more text comes, an
earlier match that needs more text), so a cut is decided only once ``lookahead`` (24) characters
follow the end of its match. That is exact for patterns that never read further than that past
the end of a match, nor past the first non-whitespace character of an attempt that fails; the
default and guide patterns read a few characters at most (barring long runs of spaces or ``*``
inside a marker). The ``regex`` module's partial matching is not used: next to lookbehinds it can
report a partial match that spans the whole buffer, which would keep a stream from deciding.

A pattern that backtracks catastrophically (``(a|aa)+$``) raises ``TimeoutError``, naming the
pattern, after ``timeout`` seconds of searching instead of hanging.

Example:
    >>> steps = "Step 1: Add.\nStep 2: Divide by 2.\n<answer>4</answer>"
    >>> PatternSegmenter().pieces(steps)
    ['Step 1: Add.\n', 'Step 2: Divide by 2.\n<answer>4</answer>']

"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import ClassVar

import regex

from llenvs.core.segmenters._base import FirstCut
from llenvs.core.segmenters._scanning import WHITESPACE, ScanningSegmenter, first_non_whitespace
from llenvs.core.segmenters._spec_fields import escape_field

__all__ = ["DEFAULT_PATTERNS", "PatternSegmenter"]

_BLANK = r"[^\S\r\n]"
_LINE_START = rf"^{_BLANK}*(?:(?:[-*+•]|\#{{1,6}}){_BLANK}+)?"
_AFTER_SENTENCE = (
    r"(?<=[.!?…][\"'”’)\]]*\s+)"  # after end punctuation and whitespace ...
    r"(?<!^[^\S\r\n]*\**\(?\d{1,3}\.\**\s+)"  # ... but not after a list number ("1. First")
    r"(?<![Ss]tep\s*\d+\.\**\s+)"  # ... nor after "Step 1."
)
_STEP_START = rf"(?:{_LINE_START}|{_AFTER_SENTENCE})\**"
_TRANSITIONS = (
    "Therefore|Thus|Hence|So|First|Firstly|Second|Secondly|Third|Thirdly|Next|Then|Finally|"
    "Lastly|Now|However|Alternatively|Wait|Additionally|Moreover|Furthermore|Similarly|Overall|"
    "In conclusion|In summary|To summarize|To conclude|Let me|Let's|Let us"
)

DEFAULT_PATTERNS: tuple[str, ...] = (
    rf"{_LINE_START}\**\(?\d{{1,3}}[.)]\**(?=\s)",
    rf"{_STEP_START}(?:[Ss]tep|STEP){_BLANK}*\d+",
    rf"{_STEP_START}(?:{_TRANSITIONS})(?=[,:;\s])",
)
"""Numbered steps at a line start; ``Step N``; transition words that open a sentence or line."""


def _leading_whitespace(text: str) -> int:
    return len(text) - len(text.lstrip(WHITESPACE))


class PatternSegmenter(ScanningSegmenter):
    r"""Cut at the first non-whitespace character of every match of ``patterns``.

    Example:
        >>> PatternSegmenter().segment("First, add. Then divide. So x = 2.")
        ['First, add.', 'Then divide.', 'So x = 2.']
        >>> guide = PatternSegmenter(patterns=(
        ...     r"(?:^|\s)\d+[.:]\s", r"(?:^|\s)(?:So|Thus|Hence),?\s"))
        >>> guide.pieces("1. Add 2. So 3: done")
        ['1. Add ', '2. ', 'So ', '3: done']
        >>> PatternSegmenter(("(",))
        Traceback (most recent call last):
        ...
        ValueError: pattern '(' is not a valid regular expression: missing ) at position 1

    """

    lookahead: ClassVar[int] = 24
    """Characters that must follow a match before a stream decides its cut."""
    timeout: ClassVar[float] = 2.0
    """Seconds one pattern may search one buffer before ``scan`` raises ``TimeoutError``."""

    def __init__(self, patterns: Sequence[str] = DEFAULT_PATTERNS) -> None:
        if isinstance(patterns, str):
            raise TypeError(
                f"PatternSegmenter takes a sequence of patterns, got the string {patterns!r}; "
                f"write ({patterns!r},)"
            )
        self._patterns = tuple(patterns)
        if not self._patterns:
            raise ValueError("PatternSegmenter needs at least one pattern, got none")
        self._compiled = tuple(_compile(pattern) for pattern in self._patterns)

    @property
    def patterns(self) -> tuple[str, ...]:
        """The regular expressions, as given."""
        return self._patterns

    @property
    def spec(self) -> str:
        r"""``"pattern"`` for the defaults, else ``"pattern:"`` and the escaped patterns.

        Example:
            >>> PatternSegmenter().spec, PatternSegmenter((r"^\d+:", "Step")).spec
            ('pattern', 'pattern:^\\\\d\\+\\::Step')

        """
        if self._patterns == DEFAULT_PATTERNS:
            return "pattern"
        return "pattern:" + ":".join(escape_field(pattern) for pattern in self._patterns)

    def scan(self, buffer: str, resume: int = 0, *, final: bool = False) -> FirstCut:
        r"""Find the first cut a match proposes (see ``ScanningSegmenter.scan``).

        Example:
            >>> seg = PatternSegmenter()
            >>> seg.scan("a\nSo b", final=True).end, seg.scan("a\nSo b", final=False).end
            (2, None)

        """
        size = len(buffer)
        content = first_non_whitespace(buffer)
        if content is None:
            return FirstCut(None, size)  # a cut needs something before it: none before the end
        start = resume
        while start > 0 and buffer[start - 1].isspace():
            start -= 1
        best: int | None = None
        best_end = size
        pending = size  # lowest cut a match proposes that still waits for text after it
        for compiled in self._compiled:
            for match in _matches(compiled, buffer, start, self.timeout):
                if best is not None and match.start() >= best:
                    break
                cut = match.start() + _leading_whitespace(match.group())
                if cut <= content:
                    continue  # nothing but whitespace before it
                if first_non_whitespace(buffer, cut) is None:
                    pending = min(pending, cut)  # only whitespace after it (so far)
                    continue
                if best is None or cut < best or (cut == best and match.end() < best_end):
                    best, best_end = cut, match.end()
        if final:
            return FirstCut(best, size if best is None else best)
        if best is not None and best < pending and best_end + self.lookahead <= size:
            return FirstCut(best, best)
        settled = min(pending, size if best is None else best, max(size - self.lookahead, 0))
        return FirstCut(None, settled)


def _matches(
    compiled: regex.Pattern[str], buffer: str, start: int, timeout: float
) -> Iterator[regex.Match[str]]:
    """Every match from ``start`` on (overlapping), or a clear error after ``timeout`` seconds."""
    try:
        yield from compiled.finditer(buffer, start, overlapped=True, timeout=timeout)
    except TimeoutError as err:
        raise TimeoutError(
            f"pattern {compiled.pattern!r} searched a {len(buffer) - start}-character text for "
            f"more than {timeout} s: it backtracks catastrophically (nested or overlapping "
            "repetition such as (a|aa)+ or (a+)+); rewrite it without nested repetition"
        ) from err


def _compile(pattern: str) -> regex.Pattern[str]:
    if not isinstance(pattern, str):
        raise TypeError(f"a pattern must be a str, got {type(pattern).__name__}: {pattern!r}")
    try:
        compiled = regex.compile(pattern, regex.MULTILINE)
    except regex.error as err:
        raise ValueError(f"pattern {pattern!r} is not a valid regular expression: {err}") from err
    if compiled.fullmatch("") is not None:
        raise ValueError(
            f"pattern {pattern!r} matches the empty string, so it would cut almost anywhere; "
            r"anchor it to some text, e.g. '^(?=\S)' rather than '^'"
        )
    return compiled
