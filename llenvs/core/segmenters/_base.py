r"""The segmenter contract (invariants 1 and 2 of DESIGN.md) and the generic stream scanner.

A segmenter cuts a text into contiguous, non-empty spans that cover it exactly. ``spans`` is the
one source of truth; ``pieces`` are the lossless strings of those spans; ``segment`` is the
guide's view (trimmed pieces for the text-pattern segmenters, exact pieces for token and LLM
segmenters). ``find_boundary`` and ``stream`` decide the same cuts incrementally, so feeding a
text in any chunking gives exactly ``pieces(text)``.

Example:
    >>> from llenvs.core.segmenters._line import LineSegmenter
    >>> seg = LineSegmenter("\n")
    >>> seg.spans("a\nb\n"), seg.pieces("a\nb\n"), seg.segment("a\nb\n")
    ([(0, 2), (2, 4)], ['a\n', 'b\n'], ['a', 'b'])
    >>> stream = seg.stream()
    >>> stream.feed("a\nb"), stream.close()
    (['a\n'], ['b'])

"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

__all__ = ["FirstCut", "SegmentStream", "Segmenter", "check_spans"]


@dataclass(frozen=True)
class FirstCut:
    """What a segmenter can say about the first cut of a buffer that may still grow.

    Example:
        >>> FirstCut(end=None, settled=5).decided
        False

    """

    end: int | None
    """End of the first span once no continuation of the buffer can move it; else None."""
    settled: int
    """No continuation of the buffer can put a cut at a position in ``(0, settled)``.

    When ``end`` is decided, ``settled == end``. Composite segmenters use it to decide a cut of
    one child while another is still undecided; streams use it to resume scanning.
    """

    @property
    def decided(self) -> bool:
        """True when ``end`` is known."""
        return self.end is not None


class Segmenter(ABC):
    """Base class of every segmenter.

    Subclasses implement ``spans``, ``first_cut`` and ``spec``; everything else derives from them.

    Example:
        >>> from llenvs.core.segmenters._sentence import SentenceSegmenter
        >>> SentenceSegmenter().segment("First step. Second step! Third?")
        ['First step.', 'Second step!', 'Third?']

    """

    trims: ClassVar[bool] = True
    """Whether ``segment`` trims surrounding whitespace (text-pattern segmenters) or returns the
    exact pieces (token and LLM segmenters)."""

    replay_only: ClassVar[bool] = False
    """True for segmenters that cannot decide cuts while streaming (``LLMSegmenter``): their
    ``first_cut`` raises ``NotImplementedError`` and only whole texts can be segmented."""

    @property
    @abstractmethod
    def spec(self) -> str:
        """The spec string that rebuilds this segmenter through ``segmenter_from_spec``."""

    @abstractmethod
    def spans(self, text: str) -> list[tuple[int, int]]:
        """Contiguous, non-empty ``(start, end)`` spans covering ``[0, len(text))``.

        Empty text has no spans; whitespace-only text has one span.
        """

    @abstractmethod
    def first_cut(self, buffer: str, resume: int = 0) -> FirstCut:
        """Decide, if the buffer allows, where the first span of ``buffer`` ends.

        ``buffer`` is the start of a text (or of the rest of a text after a cut) that may still
        grow. ``resume`` is a ``settled`` position an earlier call on a prefix of this buffer
        returned: the segmenter may skip re-scanning before it. Pure: the same arguments always
        give the same answer; the answer never has ``end == 0``.
        """

    def find_boundary(self, buffer: str) -> int | None:
        """End of the first span of ``buffer`` once it is decided, else None (never 0).

        Example:
            >>> from llenvs.core.segmenters._sentence import SentenceSegmenter
            >>> seg = SentenceSegmenter()
            >>> seg.find_boundary("x = 3."), seg.find_boundary("x = 3. Then")
            (None, 7)

        """
        return self.first_cut(buffer).end

    def pieces(self, text: str) -> list[str]:
        r"""The exact text of every span; they concatenate back to ``text``.

        Example:
            >>> from llenvs.core.segmenters._line import LineSegmenter
            >>> LineSegmenter("\n\n").pieces("a\n\nb")
            ['a\n\n', 'b']

        """
        return [text[start:end] for start, end in self.spans(text)]

    def segment(self, text: str) -> list[str]:
        r"""The guide's view of the segments.

        Text-pattern segmenters trim each piece's surrounding whitespace and leave out pieces
        that are only whitespace; token and LLM segmenters return the exact pieces.

        Example:
            >>> from llenvs.core.segmenters._line import LineSegmenter
            >>> LineSegmenter("\n").segment("  a\n\n b \n")
            ['a', 'b']

        """
        pieces = self.pieces(text)
        if not self.trims:
            return pieces
        return [p.strip() for p in pieces if p.strip()]

    def stream(self) -> SegmentStream:
        """A new scanner for one stream of text (one per trajectory, never shared).

        Example:
            >>> from llenvs.core.segmenters._sentence import SentenceSegmenter
            >>> s = SentenceSegmenter().stream()
            >>> s.feed("One. Tw"), s.feed("o. Thr"), s.close()
            (['One. '], ['Two. '], ['Thr'])

        """
        return SegmentStream(self)

    def __repr__(self) -> str:
        return f"segmenter_from_spec({self.spec!r})"

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is type(self) and isinstance(other, Segmenter) and other.spec == self.spec
        )

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.spec))


class SegmentStream:
    r"""Cuts a growing text into the pieces of ``segmenter.spans`` (invariant 2).

    ``feed`` returns the pieces completed by a chunk; ``close`` returns the rest, split with
    ``spans``. It keeps the ``settled`` position between calls, so a long undecided buffer is
    not re-scanned from its start on every chunk.

    Example:
        >>> from llenvs.core.segmenters._line import LineSegmenter
        >>> s = LineSegmenter("\n").stream()
        >>> s.feed("a\nb"), s.feed("\nc"), s.buffer, s.close()
        (['a\n'], ['b\n'], 'c', ['c'])

    """

    def __init__(self, segmenter: Segmenter) -> None:
        self.segmenter = segmenter
        self._buffer = ""
        self._settled = 0
        self._closed = False

    @property
    def buffer(self) -> str:
        """Text fed but not yet returned as a piece."""
        return self._buffer

    def feed(self, chunk: str) -> list[str]:
        """Add ``chunk``; return the pieces it completed, in order."""
        if self._closed:
            raise ValueError("this stream is closed; start a new one with segmenter.stream()")
        self._buffer += chunk
        done: list[str] = []
        while self._buffer:
            cut = self.segmenter.first_cut(self._buffer, self._settled)
            if cut.end is None:
                self._settled = cut.settled
                break
            done.append(self._buffer[: cut.end])
            self._buffer = self._buffer[cut.end :]
            self._settled = 0
        return done

    def close(self) -> list[str]:
        """End the stream; return the rest of the text split into its pieces."""
        self._closed = True
        rest, self._buffer = self._buffer, ""
        return self.segmenter.pieces(rest)


def check_spans(text: str, spans: list[tuple[int, int]]) -> None:
    """Raise ``AssertionError`` unless ``spans`` partition ``text`` as invariant 1 requires.

    Example:
        >>> check_spans("ab", [(0, 1), (1, 2)])
        >>> check_spans("ab", [(0, 1)])
        Traceback (most recent call last):
        ...
        AssertionError: spans end at 1, text has 2 characters

    """
    position = 0
    for start, end in spans:
        assert start == position, f"span {(start, end)} does not start at {position}"
        assert end > start, f"span {(start, end)} is empty"
        position = end
    assert position == len(text), f"spans end at {position}, text has {len(text)} characters"
    if text.strip() == "" and text:
        assert len(spans) == 1, f"whitespace-only text must be one span, got {len(spans)}"
