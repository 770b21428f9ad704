r"""``SentenceSegmenter``: cut a text into sentences, keeping the whitespace after each one.

A sentence ends at a run of ``.``, ``!``, ``?`` or ``…`` (``?!`` and ``...`` end it once), with the
closing quotes, brackets, markup and math delimiters right after it (``"``, ``)``, ``**``, a
backtick, ``$``, ``\)``), when whitespace follows and the next character starts a sentence. The cut
falls at that next character, so the whitespace (a newline included) belongs to the sentence it
follows. ``sentence_rules`` holds the rules: what starts a sentence (a capital, a digit, ``$``,
markdown; never a tag such as ``<answer>`` nor a lower-case word), abbreviations (``e.g.``,
``Dr.``, ``Fig.``, ``No. 5``), dotted acronyms (``U.S. Government`` goes on, ``U.S. The`` ends),
initials, list markers at a line start (``1. First``), numbered headings (``Step 2.``), elisions
(``[...]``) and spaced and four-dot ellipses. Decimals (``3.14``) never qualify: no whitespace
follows their period. ``sentence_lists`` adds two sentence starts that need no punctuation: a list
marker or Markdown heading at a line start, and the next item of an inline list (``1. The first
item 2. The second item``). Any other line break is not a cut; combine with ``LineSegmenter`` for
that.

While streaming, a sentence end is decided once the character after the whitespace has arrived
(and, for an opening quote, a possible initial or a list marker, the few after it; after an
acronym, the whole next word). ``spans`` scans the text in place, one sentence after another, so
replay costs one pass; ``scan`` is the same scan on a buffer.

Example:
    >>> SentenceSegmenter().pieces("So 2 × 4 = 8. <answer>8</answer>")
    ['So 2 × 4 = 8. <answer>8</answer>']
    >>> SentenceSegmenter().pieces("There are 2 dogs.\nDogs have 4 legs each. Dr. Who agrees.")
    ['There are 2 dogs.\n', 'Dogs have 4 legs each. ', 'Dr. Who agrees.']
    >>> SentenceSegmenter().pieces("Steps:\n1. Add\n2. Divide")
    ['Steps:\n', '1. Add\n', '2. Divide']

"""

from __future__ import annotations

import regex

from llenvs.core.segmenters._base import FirstCut
from llenvs.core.segmenters._scanning import WHITESPACE, ScanningSegmenter, first_non_whitespace
from llenvs.core.segmenters._sentence_lists import block_starts, list_item_marker, next_list_item
from llenvs.core.segmenters._sentence_rules import (
    CLOSERS,
    RULES,
    TERMINATORS,
    SentenceEnd,
    plain_sentence_end,
)

__all__ = ["SentenceSegmenter"]

_WHITESPACE = frozenset(WHITESPACE)
_CLOSING = frozenset(CLOSERS + "*`$")
_WS = regex.escape(WHITESPACE)
_CANDIDATE = regex.compile(
    f"[{regex.escape(TERMINATORS)}]+"
    f"(?=(?:[{regex.escape(''.join(_CLOSING))}]|\\\\[)\\]])*(?:[{_WS}]|\\\\?\\Z))"
    f"|\n(?=[{_WS}]*(?:[-*+•‣⁃#(\\d]|[A-Za-z]{{1,5}}(?:[.)]|\\Z)|\\Z))"
)
"""Where a sentence may end: end punctuation before whitespace (after closing quotes, brackets,
markup, ``\\)``), or a line break before what may be a list marker or a heading. The checks in
``_first_end`` decide; this only skips the positions they would pass over."""
_LATEX_CLOSERS = ("\\)", "\\]")
_BACK_OVER = frozenset(WHITESPACE + CLOSERS + TERMINATORS + "*`$\\")
_ITEM_TAIL = 12
"""Characters at the end of a buffer that may hold the start of an unfinished list marker."""


class SentenceSegmenter(ScanningSegmenter):
    """Cut at sentence ends; each piece keeps the whitespace that follows it.

    Example:
        >>> seg = SentenceSegmenter()
        >>> seg.segment("First step. Second step! Third?")
        ['First step.', 'Second step!', 'Third?']
        >>> seg.find_boundary("x = 3."), seg.find_boundary("x = 3. Then"), seg.spec
        (None, 7, 'sentence')
        >>> seg.segment("1. The first item 2. The second item")
        ['1. The first item', '2. The second item']

    """

    @property
    def spec(self) -> str:
        """Always ``"sentence"``."""
        return "sentence"

    def scan(self, buffer: str, resume: int = 0, *, final: bool = False) -> FirstCut:
        """Find the start of the second sentence (see ``ScanningSegmenter.scan``).

        Example:
            >>> SentenceSegmenter().scan("Hi. "), SentenceSegmenter().scan("Hi. ", final=True)
            (FirstCut(end=None, settled=2), FirstCut(end=None, settled=4))

        """
        end, settled = _scan(buffer, 0, resume, final)
        return FirstCut(end, settled)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Contiguous, non-empty ``(start, end)`` spans covering ``[0, len(text))``.

        The same cuts as ``ScanningSegmenter.spans``, scanned in place (no copies of the rest).

        Example:
            >>> SentenceSegmenter().spans("One. Two.")
            [(0, 5), (5, 9)]

        """
        result: list[tuple[int, int]] = []
        size = len(text)
        base = 0
        while base < size:
            end = _scan(text, base, base, True)[0]
            if end is None:
                end = size
            result.append((base, end))
            base = end
        return result


def _scan(text: str, base: int, resume: int, final: bool) -> tuple[int | None, int]:
    """``scan`` of the buffer ``text[base:]`` in ``text``'s coordinates: ``(end, settled)``."""
    start = resume
    while start > base and text[start - 1] in _BACK_OVER:
        start -= 1
    size = len(text)
    if base < size and text[base] not in _WHITESPACE:
        content: int | None = base
    else:
        content = first_non_whitespace(text, base)
    if content is None:
        return None, size
    marker = list_item_marker(text, content)
    if marker is None:
        return _first_end(text, base, start, content, size, final)[:2]
    # An inline list: the next item's marker cuts unless a sentence ends before it.
    search_from = max(start - _ITEM_TAIL, content + 1)
    if final:
        end, settled, _ = _first_end(text, base, start, content, size, final)
        item = next_list_item(text, marker, search_from, settled if end is None else end)
        return (item, item) if item is not None else (end, settled)
    item = next_list_item(text, marker, search_from)
    bound = item if item is not None else max(size - _ITEM_TAIL, content + 1)
    end, settled, exhausted = _first_end(text, base, start, content, bound, final)
    if exhausted and item is not None:
        return item, item
    return end, settled


def _first_end(
    text: str, base: int, start: int, content: int, bound: int, final: bool
) -> tuple[int | None, int, bool]:
    """The first sentence end or block start from ``start``, before ``bound``.

    Returns ``(end, settled, exhausted)``: ``exhausted`` when no candidate before ``bound``
    decided or waited.
    """
    size = len(text)
    for candidate in _CANDIDATE.finditer(text, start, bound):
        at = candidate.start()
        if text[at] == "\n":
            following = first_non_whitespace(text, at + 1)
            if following is None:
                return None, bound, False
            if at < content:
                continue
            starts = block_starts(text, following, final)
            if starts is None:
                return None, min(following, bound), False
            if starts:
                return following, following, False
            continue
        closed = stop = candidate.end()
        while closed < size:
            if text[closed] in _CLOSING:
                closed += 1
            elif text.startswith(_LATEX_CLOSERS, closed):
                closed += 2
            else:
                break
        if closed < size and text[closed] not in _WHITESPACE:
            if closed + 1 == size and text[closed] == "\\" and not final:
                return None, at, False  # "2.\\" may become "2.\\)"
            continue  # "3.14", "e.g.x", "Jr.'s": no whitespace after the punctuation
        following = first_non_whitespace(text, closed)
        if following is None:  # the text (so far) ends with this punctuation
            return None, (size if final else min(at, bound)), False
        if plain_sentence_end(text, at, stop, following, base):
            return following, following, False
        verdict = _verdict(SentenceEnd(text, at, stop, closed, following, final, base))
        if verdict is None:
            return None, at, False
        if verdict:
            return following, following, False
    return None, bound, True


def _verdict(end: SentenceEnd) -> bool | None:
    """True when every rule agrees, False when one objects, None when one needs more text."""
    waiting = False
    for rule in RULES:
        answer = rule(end)
        if answer is False:
            return False
        if answer is None:
            waiting = True
    return None if waiting else True
