"""The rules that decide whether punctuation followed by whitespace ends a sentence.

A candidate (``SentenceEnd``) is a run of ``.``, ``!``, ``?`` or ``…``, the closing quotes and
brackets right after it, the whitespace after those, and the character that would start the next
sentence. Every rule in ``RULES`` looks at the candidate and answers ``True`` (no objection),
``False`` (not a sentence end) or ``None`` (it needs characters the buffer does not hold yet).
A candidate ends a sentence when no rule objects. A rule answers ``False`` only from characters
already present, so a rejection never changes as the text grows; that is what lets a stream
decide early. Rules look back no further than the start of the candidate's line, and never
before the start of the buffer (a buffer starts at a sentence or line start). To teach the
splitter something new, add a rule here.

Example:
    >>> end = SentenceEnd("Dr. Smith", start=2, stop=3, closed=3, next=4, final=True)
    >>> end.word, not_abbreviation(end), next_starts_sentence(end)
    ('Dr', False, True)

"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import regex

from llenvs.core.segmenters._scanning import WHITESPACE
from llenvs.core.segmenters._sentence_vocabulary import (
    ABBREVIATIONS,
    CLOSERS,
    HEADING_WORDS,
    NUMBER_ABBREVIATIONS,
    OPENERS,
    SENTENCE_STARTERS,
    TERMINATORS,
)

_TOKEN_BEFORE = regex.compile("[^" + regex.escape(WHITESPACE) + "]*", regex.REVERSE)

__all__ = [
    "ABBREVIATIONS",
    "CLOSERS",
    "NUMBER_ABBREVIATIONS",
    "OPENERS",
    "RULES",
    "TERMINATORS",
    "SentenceEnd",
    "next_starts_sentence",
    "not_abbreviation",
    "not_acronym",
    "not_elision",
    "not_in_code_span",
    "not_initial",
    "not_list_marker",
    "not_numbered_heading",
    "not_spaced_ellipsis",
    "plain_sentence_end",
]

_START_SYMBOLS = "$*#-•‣⁃"
"""Non-letters that may start a sentence: inline math, markdown emphasis, headings, bullets."""
_BULLETS = "-*+•‣⁃·"
_MARKUP = "*_#"
_LINE_BREAKS = "\n\r"
_SPACES = frozenset(WHITESPACE) - frozenset(_LINE_BREAKS)

_ACRONYM = regex.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")
_WORD = regex.compile(r"\w+")
_LIST_MARKER = regex.compile(r"\(?(?:\d{1,3}|[A-Za-z]|[ivx]{1,5}|[IVX]{1,5})\)?")


@dataclass(frozen=True)
class SentenceEnd:
    """A candidate sentence end in ``text``.

    Example:
        >>> end = SentenceEnd('He said "Hi." Then', start=11, stop=12, closed=13, next=14)
        >>> end.punctuation, end.word, end.char(end.next)
        ('.', 'Hi', 'T')

    """

    text: str
    """The buffer (it may still grow unless ``final``)."""
    start: int
    """Index of the first terminator."""
    stop: int
    """Index just after the terminators."""
    closed: int
    """Index just after the closing quotes and brackets that follow the terminators."""
    next: int
    """Index of the first non-whitespace character after them: where a new sentence would start."""
    final: bool = False
    """Whether ``text`` is the whole rest of the text (no more characters will come)."""
    base: int = 0
    """Where the buffer starts in ``text``: rules never look before it."""

    @property
    def punctuation(self) -> str:
        """The terminators (``"."``, ``"?!"``, ``"..."``)."""
        return self.text[self.start : self.stop]

    def char(self, index: int) -> str | None:
        """The character at ``index``, or None past the end of the buffer."""
        return self.text[index] if index < len(self.text) else None

    def unknown(self, default: bool) -> bool | None:
        """What a rule answers when it needs a character past the end: None while streaming."""
        return default if self.final else None

    @cached_property
    def token_start(self) -> int:
        """Index where the whitespace-free token holding the terminators begins."""
        found = _TOKEN_BEFORE.match(self.text, self.base, self.start)
        return self.start if found is None else int(found.start())

    @cached_property
    def word(self) -> str:
        """The token before the terminators, without leading quotes, brackets and markup."""
        return self.text[self.token_start : self.start].lstrip(OPENERS + _MARKUP)

    @property
    def at_line_start(self) -> bool:
        """Whether only spaces and bullets come before the token on its line."""
        index = self.token_start
        while index > self.base and self.text[index - 1] not in _LINE_BREAKS:
            if self.text[index - 1] not in _SPACES and self.text[index - 1] not in _BULLETS:
                return False
            index -= 1
        return True

    @property
    def previous_word(self) -> str:
        """The word before the token on the same line ("" when there is none)."""
        end = self.token_start
        while end > self.base and self.text[end - 1] in _SPACES:
            end -= 1
        begin = end
        while begin > self.base and not self.text[begin - 1].isspace():
            begin -= 1
        return self.text[begin:end].lstrip(OPENERS + _MARKUP)


Rule = Callable[[SentenceEnd], "bool | None"]


def _starts_sentence(char: str) -> bool:
    return (
        char.isupper()
        or char.istitle()
        or char.isdigit()
        or (char.isalpha() and not char.islower())
        or char in _START_SYMBOLS
    )


def next_starts_sentence(end: SentenceEnd) -> bool | None:
    """A sentence starts with a capital, a digit, an uncased letter, ``$`` or markdown.

    Not with a lower-case word (``e.g. the``), a tag (``<answer>``), a comma or other
    punctuation. Opening quotes and brackets are skipped first (``"So`` starts one).

    Example:
        >>> ends = [SentenceEnd(t, 1, 2, 2, 3) for t in ("a. B", "a. b", "a. <", 'a. "')]
        >>> [next_starts_sentence(end) for end in ends]
        [True, False, False, None]

    """
    index = end.next
    while index < len(end.text) and end.text[index] in OPENERS:
        index += 1
    char = end.char(index)
    if char is None:
        return end.unknown(False)
    if index > end.next and char in _START_SYMBOLS:
        return False
    if char == "." and index == end.next:
        return _ellipsis_opens_sentence(end)
    return _starts_sentence(char)


def _ellipsis_opens_sentence(end: SentenceEnd) -> bool | None:
    """``word. . . . Next``: the word's period ends the sentence, ``. . .`` opens the next."""
    if end.punctuation != "." or end.start == end.base or end.text[end.start - 1].isspace():
        return False
    ellipsis = end.text[end.next : end.next + 6]
    if len(ellipsis) < 6:
        return end.unknown(False) if ". . . ".startswith(ellipsis) else False
    if ellipsis != ". . . ":
        return False
    index = end.next + 6
    while index < len(end.text) and end.text[index] in _SPACES:
        index += 1
    char = end.char(index)
    if char is None:
        return end.unknown(False)
    return _starts_sentence(char) and char not in _START_SYMBOLS


def not_elision(end: SentenceEnd) -> bool:
    """``[...]`` and ``(!)`` mark an elision or an aside, not a sentence end.

    Example:
        >>> not_elision(SentenceEnd("x [...] Y", 3, 6, 7, 8))
        False

    """
    return not (end.start > end.base and end.text[end.start - 1] in "[(")


def not_abbreviation(end: SentenceEnd) -> bool:
    """A period after a known abbreviation, or before a number after ``p``/``No``, ends nothing.

    An abbreviated month is such a ``p``: ``on Jan. 5th`` goes on, ``born in Jan. Then`` ends.

    Example:
        >>> not_abbreviation(SentenceEnd("see p. 5", 5, 6, 6, 7))
        False
        >>> [not_abbreviation(SentenceEnd(f"in Jan. {w}", 6, 7, 7, 8)) for w in ("5th", "Then")]
        [False, True]

    """
    if end.punctuation != ".":
        return True
    word = end.word
    key = word.lower()
    if key in ABBREVIATIONS:
        return False
    if key in NUMBER_ABBREVIATIONS or (len(word) == 1 and word.islower()):
        following = end.char(end.next)
        return not (following is not None and (following.isdigit() or following == "("))
    return True


def not_acronym(end: SentenceEnd) -> bool | None:
    """After a dotted acronym (``U.S.``, ``a.m.``) only a common sentence opener starts one.

    ``the U.S. Government`` goes on; ``in the U.S. The rate`` and ``at 5 p.m. Then`` end.

    Example:
        >>> not_acronym(SentenceEnd("the U.S. Government", 7, 8, 8, 9, final=True))
        False
        >>> not_acronym(SentenceEnd("the U.S. He left", 7, 8, 8, 9, final=True))
        True

    """
    if end.punctuation != "." or "." not in end.word or not _ACRONYM.fullmatch(end.word):
        return True
    found = _WORD.match(end.text, end.next)
    if found is None:
        return True
    if found.end() == len(end.text):
        return end.unknown(found.group().lower() in SENTENCE_STARTERS)
    return found.group().lower() in SENTENCE_STARTERS


def not_initial(end: SentenceEnd) -> bool | None:
    """A capital and a period before a capital may be an initial (``Jonas E. Smith``).

    It is one when the word before it is a capitalised name, or when the next word is an initial
    too (``J. K. Rowling``); ``you and I. Did`` and ``point A. Then`` end sentences.

    Example:
        >>> not_initial(SentenceEnd("Jonas E. Smith", 7, 8, 8, 9))
        False

    """
    word = end.word
    if end.punctuation != "." or len(word) != 1 or not word.isupper():
        return True
    if not (end.char(end.next) or " ").isupper():
        return True
    previous = end.previous_word.rstrip(".")
    if previous[:1].isupper() and previous.isalpha():
        return False
    following = end.char(end.next + 1)
    if following is None:
        return end.unknown(True)
    return following != "."


def not_list_marker(end: SentenceEnd) -> bool:
    """``1.``, ``a.`` or ``iv.`` at the start of a line (or of the buffer) numbers a list item.

    Example:
        >>> not_list_marker(SentenceEnd("1. First", 1, 2, 2, 3)), not_list_marker(
        ...     SentenceEnd("x = 1. First", 5, 6, 6, 7))
        (False, True)

    """
    if end.punctuation != ".":
        return True
    if not _LIST_MARKER.fullmatch(end.word.lstrip(_BULLETS)):
        return True
    return not end.at_line_start


def not_numbered_heading(end: SentenceEnd) -> bool:
    """``Step 2.`` (or ``Case 3.``, ``Part 1.``) heads what follows; it ends no sentence.

    Example:
        >>> not_numbered_heading(SentenceEnd("Step 2. Add", 6, 7, 7, 8))
        False

    """
    if end.punctuation != "." or not end.word.isdigit():
        return True
    return end.previous_word.lower() not in HEADING_WORDS


def not_spaced_ellipsis(end: SentenceEnd) -> bool:
    """The third dot of a spaced ``. . .`` marks an omission; a fourth dot ends the sentence.

    Example:
        >>> not_spaced_ellipsis(SentenceEnd("is . . . I", 7, 8, 8, 9))
        False

    """
    if end.punctuation != ".":
        return True
    dots = 1
    index = end.start
    while index >= end.base + 2 and end.text[index - 2 : index] == ". ":
        dots += 1
        index -= 2
    return dots != 3


def not_in_code_span(end: SentenceEnd) -> bool | None:
    """Punctuation inside an inline code span (```a. B```) ends no sentence.

    The span opens at an odd backtick earlier on the line and closes at a backtick later on the
    same line, past the whitespace; a backtick right after the punctuation closes the span
    there (```make test.` Then`` ends a sentence). An unclosed backtick opens no span.

    Example:
        >>> not_in_code_span(SentenceEnd("Run `a. B` now", 6, 7, 7, 8, final=True))
        False
        >>> not_in_code_span(SentenceEnd("Run `a`. B", 7, 8, 8, 9, final=True))
        True

    """
    line_start = max(end.text.rfind("\n", end.base, end.start) + 1, end.base)
    if end.text.count("`", line_start, end.start) % 2 == 0:
        return True
    closing = end.text.find("`", end.closed)
    line_end = end.text.find("\n", end.closed)
    if closing < 0:
        return True if line_end >= 0 else end.unknown(True)
    return 0 <= line_end < closing


RULES: tuple[Rule, ...] = (
    next_starts_sentence,
    not_elision,
    not_abbreviation,
    not_acronym,
    not_initial,
    not_list_marker,
    not_numbered_heading,
    not_spaced_ellipsis,
    not_in_code_span,
)
"""Every rule a candidate must pass, cheapest and most selective first."""


_NOT_PLAIN = ABBREVIATIONS | NUMBER_ABBREVIATIONS


def plain_sentence_end(text: str, start: int, stop: int, next: int, base: int = 0) -> bool:
    """A shortcut that every rule in ``RULES`` agrees with: the common, certain sentence end.

    One terminator right after a word of two characters or more that holds no period, is no
    number, no known abbreviation and no list marker (``dogs.``, ``$x$.``, ``8x.``), no backtick
    earlier in the sentence, and a capital A-Z or a digit after the whitespace: no rule objects
    to that, so the scanner cuts without asking them. A new rule that may object to such an end
    must make this return False there too (a property test checks that they agree).

    Example:
        >>> plain_sentence_end("two dogs. The", 8, 9, 10), plain_sentence_end("Dr. Who", 2, 3, 4)
        (True, False)

    """
    if stop != start + 1 or not ("A" <= text[next] <= "Z" or "0" <= text[next] <= "9"):
        return False
    found = _TOKEN_BEFORE.match(text, base, start)
    word = "" if found is None else found.group().lstrip(OPENERS + _MARKUP)
    return (
        len(word) > 1
        and "." not in word
        and text.rfind("`", base, start) < 0
        and not word.isdigit()
        and text[start - 1] not in "[("
        and word.lower() not in _NOT_PLAIN
        and _LIST_MARKER.fullmatch(word.lstrip(_BULLETS)) is None
    )
