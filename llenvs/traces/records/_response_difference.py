r"""How a trace made again differs from the recorded one: identical, or where they part.

``llenvs rerun`` and the workbench's *Run again* generate a trace anew from its recorded run
spec and compare: a greedy trace on the same model should come back identical, segment for
segment; where it does not, the first segment that differs, the character where the responses
part and how much of the text they still share say how far it moved.

Example:
    >>> from llenvs.traces.records._segment import SegmentRecord
    >>> def trace(*texts):
    ...     spans, start = [], 0
    ...     for i, text in enumerate(texts):
    ...         spans.append(SegmentRecord(i, start, start + len(text), text))
    ...         start += len(text)
    ...     return Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="".join(texts),
    ...                  segments=tuple(spans))
    >>> ResponseDifference.between(trace("A. ", "B."), trace("A. ", "B.")).identical
    True
    >>> d = ResponseDifference.between(trace("A. ", "B. ", "C."), trace("A. ", "D. ", "C."))
    >>> d.identical, d.first_segment, d.first_character, d.describe()
    (False, 1, 3, 'differs from segment 1 on (character 3 of 8); 88% of the text in common')
    >>> ResponseDifference.between(trace("A. ", "B."), trace("A.\n", "B.")).describe()
    'differs only in whitespace, from segment 0 on (character 2 of 5); the words are the same'

"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from llenvs.traces.records._trace import Trace

__all__ = ["ResponseDifference"]


@dataclass(frozen=True)
class ResponseDifference:
    """Where a trace made again parts from the recorded one (nothing, when identical).

    Example:
        >>> ResponseDifference(True, None, None, 1.0, 3, 3, 9).describe()
        'identical: 3 segments, the same text'

    """

    identical: bool
    """The same response, cut into the same segments."""
    first_segment: int | None
    """The index of the first segment whose text differs (or that one trace lacks); None when
    identical."""
    first_character: int | None
    """Where the responses' texts first differ (their common prefix's length); None when the
    texts are equal (they may still be cut differently)."""
    similarity: float
    """How much of the text the two share, in [0, 1] (``difflib``'s ratio; 1.0: equal)."""
    recorded_segments: int
    """How many segments the recorded trace has."""
    new_segments: int
    """How many segments the trace made again has."""
    recorded_characters: int
    """How long the recorded response is."""
    whitespace_only: bool = False
    """The texts differ, but only in whitespace (spaces, tabs, newlines): the same words."""

    @classmethod
    def between(cls, recorded: Trace, again: Trace) -> ResponseDifference:
        """Compare ``again`` with ``recorded``, segment by segment and character by character.

        Example:
            >>> from llenvs.traces.records._segment import SegmentRecord
            >>> a = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="Hi.",
            ...           segments=(SegmentRecord(0, 0, 3, "Hi."),))
            >>> b = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="Hi. Bye.",
            ...           segments=(SegmentRecord(0, 0, 3, "Hi."), SegmentRecord(1, 3, 8, " Bye.")))
            >>> ResponseDifference.between(a, b).describe()
            'differs from segment 1 on (character 3 of 3); 55% of the text in common'

        """
        old = [segment.text for segment in recorded.segments]
        new = [segment.text for segment in again.segments]
        first_segment = next(
            (i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
            None if len(old) == len(new) else min(len(old), len(new)),
        )
        first_character = _common_prefix(recorded.response, again.response)
        texts_equal = recorded.response == again.response
        similarity = (
            1.0
            if texts_equal
            else difflib.SequenceMatcher(None, recorded.response, again.response).ratio()
        )
        return cls(
            identical=first_segment is None and texts_equal,
            first_segment=first_segment,
            first_character=None if texts_equal else first_character,
            similarity=similarity,
            recorded_segments=len(old),
            new_segments=len(new),
            recorded_characters=len(recorded.response),
            whitespace_only=not texts_equal and _words(recorded.response) == _words(again.response),
        )

    def describe(self) -> str:
        """One line for a person: identical, or from which segment and character it differs.

        Example:
            >>> ResponseDifference(False, 2, None, 1.0, 4, 3, 9).describe()
            'the same text, cut differently from segment 2 on (4 segments recorded, 3 now)'

        """
        if self.identical:
            return f"identical: {self.recorded_segments} segments, the same text"
        if self.first_character is None:
            return (
                f"the same text, cut differently from segment {self.first_segment} on "
                f"({self.recorded_segments} segments recorded, {self.new_segments} now)"
            )
        if self.whitespace_only:
            return (
                f"differs only in whitespace, from segment {self.first_segment} on (character "
                f"{self.first_character} of {self.recorded_characters}); the words are the same"
            )
        return (
            f"differs from segment {self.first_segment} on (character {self.first_character} "
            f"of {self.recorded_characters}); {self.similarity:.0%} of the text in common"
        )


def _words(text: str) -> str:
    """``text`` without its whitespace: what two texts that differ only in it share."""
    return "".join(text.split())


def _common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of ``a`` and ``b``."""
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return min(len(a), len(b))
