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

import regex

from llenvs.core.segmenters.scanning import WHITESPACE

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
    "not_elision",
    "not_initial",
    "not_list_marker",
    "not_numbered_heading",
    "not_spaced_ellipsis",
]

TERMINATORS = ".!?…‽"
"""Characters that can end a sentence (a run of them ends it once: ``?!``, ``...``)."""
CLOSERS = "\"'”’»)]}"
"""Closing quotes and brackets that stay with the sentence they follow."""
OPENERS = "\"'“‘«([{"
"""Opening quotes and brackets that may come before the first word of a sentence."""
_START_SYMBOLS = "$*#-•‣⁃"
"""Non-letters that may start a sentence: inline math, markdown emphasis, headings, bullets."""
_BULLETS = "-*+•‣⁃·"
_MARKUP = "*_#"
_LINE_BREAKS = "\n\r"
_SPACES = frozenset(WHITESPACE) - frozenset(_LINE_BREAKS)

ABBREVIATIONS = frozenset(
    "mr mrs ms mx dr prof st mt gen gov sen rep rev hon capt lt col sgt cmdr adm pres supt "
    "fig figs eq eqs eqn thm lem prop cor def sec ch chap vol vols art ref refs "
    "approx vs e.g i.e cf viz al ca resp incl esp".split()
)
"""Words (lower case, inner periods kept) that a period never ends a sentence after."""
NUMBER_ABBREVIATIONS = frozenset("no nos nr n° nº p pp pg para".split())
"""Words that are abbreviations when a number follows (``No. 5``, ``p. 55``)."""
HEADING_WORDS = frozenset(
    "step case part problem question example exercise chapter section lemma theorem claim "
    "method stage phase".split()
)
"""Words that make ``<word> <number>.`` a heading (``Step 2. Add``) rather than a sentence end."""
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

    @property
    def token_start(self) -> int:
        """Index where the whitespace-free token holding the terminators begins."""
        index = self.start
        while index > 0 and not self.text[index - 1].isspace():
            index -= 1
        return index

    @property
    def word(self) -> str:
        """The token before the terminators, without leading quotes, brackets and markup."""
        return self.text[self.token_start : self.start].lstrip(OPENERS + _MARKUP)

    @property
    def at_line_start(self) -> bool:
        """Whether only spaces and bullets come before the token on its line."""
        index = self.token_start
        while index > 0 and self.text[index - 1] not in _LINE_BREAKS:
            if self.text[index - 1] not in _SPACES and self.text[index - 1] not in _BULLETS:
                return False
            index -= 1
        return True

    @property
    def previous_word(self) -> str:
        """The word before the token on the same line ("" when there is none)."""
        end = self.token_start
        while end > 0 and self.text[end - 1] in _SPACES:
            end -= 1
        begin = end
        while begin > 0 and not self.text[begin - 1].isspace():
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
    return _starts_sentence(char)


def not_elision(end: SentenceEnd) -> bool:
    """``[...]`` and ``(!)`` mark an elision or an aside, not a sentence end.

    Example:
        >>> not_elision(SentenceEnd("x [...] Y", 3, 6, 7, 8))
        False

    """
    return not (end.start > 0 and end.text[end.start - 1] in "[(")


def not_abbreviation(end: SentenceEnd) -> bool:
    """A period after a known abbreviation, or before a number after ``p``/``No``, ends nothing.

    Example:
        >>> not_abbreviation(SentenceEnd("see p. 5", 5, 6, 6, 7))
        False

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
    while index >= 2 and end.text[index - 2 : index] == ". ":
        dots += 1
        index -= 2
    return dots != 3


RULES: tuple[Rule, ...] = (
    next_starts_sentence,
    not_elision,
    not_abbreviation,
    not_initial,
    not_list_marker,
    not_numbered_heading,
    not_spaced_ellipsis,
)
"""Every rule a candidate must pass, cheapest and most selective first."""
