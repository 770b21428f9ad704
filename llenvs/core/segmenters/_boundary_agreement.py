r"""How well two sets of segment boundaries agree: boundary precision, recall and F1.

A boundary is where a segment starts (the first one, at 0, does not count). Both sides are
moved to the first non-whitespace character at or after the cut, so a cut before or after the
blank line between two steps is the same boundary. Agreements add up (micro averaging) over
many texts. The segmenter benchmark and the app's comparison page both use it.

Example:
    >>> text = "One.\n\nTwo. Three."
    >>> a = BoundaryAgreement.of(text, predicted=[(0, 6), (6, 11), (11, 17)], expected=[6])
    >>> a.precision, a.recall, round(a.f1, 3)
    (0.5, 1.0, 0.667)

"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from llenvs.core.segmenters._base import Segmenter
from llenvs.core.segmenters._scanning import first_non_whitespace

__all__ = ["BoundaryAgreement", "boundary_agreement", "visible_boundaries"]


def visible_boundaries(text: str, starts: Iterable[int]) -> frozenset[int]:
    r"""Segment starts moved to the first non-whitespace character at or after each; 0 dropped.

    Example:
        >>> sorted(visible_boundaries("a.\n\nb.", [0, 2, 4]))
        [4]

    """
    moved = set()
    for start in starts:
        if start <= 0:
            continue
        found = first_non_whitespace(text, start)
        moved.add(len(text) if found is None else found)
    return frozenset(moved)


@dataclass(frozen=True)
class BoundaryAgreement:
    """Counts of matching boundaries: found by both, predicted, expected.

    Example:
        >>> total = BoundaryAgreement(1, 2, 1) + BoundaryAgreement(1, 1, 3)
        >>> total, total.precision, total.recall
        (BoundaryAgreement(hits=2, predicted=3, expected=4), 0.6666666666666666, 0.5)

    """

    hits: int
    """Boundaries both sides have."""
    predicted: int
    """Boundaries of the side under test."""
    expected: int
    """Boundaries of the reference side."""

    @classmethod
    def of(
        cls, text: str, predicted: Sequence[tuple[int, int]], expected: Iterable[int]
    ) -> BoundaryAgreement:
        """The agreement of ``predicted`` spans with ``expected`` segment starts on ``text``.

        Example:
            >>> BoundaryAgreement.of("a. b.", [(0, 3), (3, 5)], [3])
            BoundaryAgreement(hits=1, predicted=1, expected=1)

        """
        ours = visible_boundaries(text, (start for start, _ in predicted))
        theirs = visible_boundaries(text, expected)
        return cls(len(ours & theirs), len(ours), len(theirs))

    def __add__(self, other: BoundaryAgreement) -> BoundaryAgreement:
        return BoundaryAgreement(
            self.hits + other.hits,
            self.predicted + other.predicted,
            self.expected + other.expected,
        )

    @property
    def precision(self) -> float:
        """Share of predicted boundaries that are expected (0 when none are predicted).

        Example:
            >>> BoundaryAgreement(0, 0, 3).precision
            0.0

        """
        return self.hits / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        """Share of expected boundaries that are predicted (0 when none are expected).

        Example:
            >>> BoundaryAgreement(2, 2, 4).recall
            0.5

        """
        return self.hits / self.expected if self.expected else 0.0

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall; 1.0 when neither side has a boundary.

        Example:
            >>> BoundaryAgreement(0, 0, 0).f1, BoundaryAgreement(1, 1, 3).f1
            (1.0, 0.5)

        """
        if self.predicted == 0 and self.expected == 0:
            return 1.0
        total = self.precision + self.recall
        return 2 * self.precision * self.recall / total if total else 0.0


def boundary_agreement(
    segmenter: Segmenter, texts: Iterable[tuple[str, Iterable[int]]]
) -> BoundaryAgreement:
    r"""The micro-averaged agreement of ``segmenter``'s cuts with each text's expected starts.

    Example:
        >>> from llenvs.core.segmenters import LineSegmenter
        >>> boundary_agreement(LineSegmenter(), [("a\nb\nc", [2]), ("d", [])]).recall
        1.0

    """
    total = BoundaryAgreement(0, 0, 0)
    for text, starts in texts:
        total += BoundaryAgreement.of(text, segmenter.spans(text), starts)
    return total
