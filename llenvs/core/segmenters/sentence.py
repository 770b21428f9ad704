r"""``SentenceSegmenter``: cut a text into sentences, keeping the whitespace after each one.

A sentence ends at a run of ``.``, ``!``, ``?`` or ``…`` (``?!`` and ``...`` end it once), with
the closing quotes and brackets right after it, when whitespace follows and the next character
starts a sentence. The cut falls at that next character, so the whitespace (a newline included)
belongs to the sentence it follows. ``sentence_rules`` holds the rules: what starts a sentence
(a capital, a digit, ``$``, markdown; never a tag such as ``<answer>`` nor a lower-case word),
abbreviations (``e.g.``, ``Dr.``, ``Fig.``, ``No. 5``), initials, list markers at a line start
(``1. First``), numbered headings (``Step 2.``), elisions (``[...]``) and spaced ellipses.
Decimals (``3.14``) never qualify: no whitespace follows their period. A line break without end
punctuation is not a cut; combine with ``LineSegmenter`` for that.

While streaming, a sentence end is decided once the character after the whitespace has arrived
(and, for an opening quote or a possible initial, the one after it).

Example:
    >>> SentenceSegmenter().pieces("So 2 × 4 = 8. <answer>8</answer>")
    ['So 2 × 4 = 8. <answer>8</answer>']
    >>> SentenceSegmenter().pieces("There are 2 dogs.\nDogs have 4 legs each. Dr. Who agrees.")
    ['There are 2 dogs.\n', 'Dogs have 4 legs each. ', 'Dr. Who agrees.']

"""

from __future__ import annotations

import regex

from llenvs.core.segmenters.base import FirstCut
from llenvs.core.segmenters.scanning import WHITESPACE, ScanningSegmenter, first_non_whitespace
from llenvs.core.segmenters.sentence_rules import (
    CLOSERS,
    RULES,
    TERMINATORS,
    SentenceEnd,
)

__all__ = ["SentenceSegmenter"]

_TERMINATOR_RUN = regex.compile(f"[{regex.escape(TERMINATORS)}]+")
_WHITESPACE = frozenset(WHITESPACE)
_CLOSERS = frozenset(CLOSERS)
_BACK_OVER = frozenset(WHITESPACE + CLOSERS + TERMINATORS)


class SentenceSegmenter(ScanningSegmenter):
    """Cut at sentence ends; each piece keeps the whitespace that follows it.

    Example:
        >>> seg = SentenceSegmenter()
        >>> seg.segment("First step. Second step! Third?")
        ['First step.', 'Second step!', 'Third?']
        >>> seg.find_boundary("x = 3."), seg.find_boundary("x = 3. Then"), seg.spec
        (None, 7, 'sentence')

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
        start = resume
        while start > 0 and buffer[start - 1] in _BACK_OVER:
            start -= 1
        size = len(buffer)
        for run in _TERMINATOR_RUN.finditer(buffer, start):
            closed = run.end()
            while closed < size and buffer[closed] in _CLOSERS:
                closed += 1
            if closed < size and buffer[closed] not in _WHITESPACE:
                continue  # "3.14", "e.g.x", "Jr.'s": no whitespace after the punctuation
            following = first_non_whitespace(buffer, closed)
            if following is None:  # the text (so far) ends with this punctuation
                return FirstCut(None, size) if final else FirstCut(None, run.start())
            verdict = _verdict(
                SentenceEnd(buffer, run.start(), run.end(), closed, following, final)
            )
            if verdict is None:
                return FirstCut(None, run.start())
            if verdict:
                return FirstCut(following, following)
        return FirstCut(None, size)


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
