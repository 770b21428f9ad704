"""Two lists of texts paired in order: equal texts, then alike characters, then alike meaning.

``difflib.SequenceMatcher`` over the two lists finds the texts they share, in order. In each
block it replaces, texts are paired by their characters (``difflib``'s ratio at least
``threshold``: method ``text``), and in the gaps left between those pairs by meaning (a
``TextSimilarity`` at least ``threshold``, its name the method), each time the order-keeping
pairs of largest total score. The similarity is asked only of gaps that hold texts of both
sides, so lists that differ by small edits never load a model. ``align_traces`` builds on it.

Example:
    >>> from llenvs.analysis.instruments import LexicalSimilarity
    >>> pairing = TextPairing(["A.", "So 4 legs.", "It is four.", "B."],
    ...                       ["A.", "So 6 legs.", "Four, it is.", "B."], LexicalSimilarity(), 0.8)
    >>> [(p.a, p.b, p.method) for p in pairing.pairs()]
    [(0, 0, 'text'), (1, 1, 'text'), (2, 2, 'lexical'), (3, 3, 'text')]
    >>> pairing.asked
    'lexical'

"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from llenvs.analysis.instruments._sentence_similarity import TextSimilarity, default_similarity

__all__ = ["BY_TEXT", "TextPair", "TextPairing"]

BY_TEXT = "text"
"""The method of pairs found by their characters (and of every ``equal`` step)."""


@dataclass(frozen=True)
class TextPair:
    """Two texts found alike: equal, or alike by characters or by meaning."""

    a: int
    """The text's index in the first list."""
    b: int
    """Its partner's index in the second list."""
    method: str
    """How they were found: ``text``, or the similarity's name."""
    score: float
    """How alike they are under that method (1.0 for equal texts)."""


class TextPairing:
    """The pairs of two lists of texts: equal runs, then by characters, then by meaning.

    ``similarity`` None: ``default_similarity()``, made only when first needed.
    """

    def __init__(
        self,
        a: Sequence[str],
        b: Sequence[str],
        similarity: TextSimilarity | None,
        threshold: float,
    ) -> None:
        self.a, self.b = a, b
        self.similarity = similarity
        self.threshold = threshold
        self.asked: str | None = None
        """The name of the similarity once it has been asked."""

    def pairs(self) -> list[TextPair]:
        """Every pair, in order of both sides."""
        found: list[TextPair] = []
        matcher = difflib.SequenceMatcher(None, self.a, self.b, autojunk=False)
        for tag, a1, a2, b1, b2 in matcher.get_opcodes():
            if tag == "equal":
                found.extend(TextPair(a1 + k, b1 + k, BY_TEXT, 1.0) for k in range(a2 - a1))
            elif tag == "replace":
                found.extend(self._replaced(range(a1, a2), range(b1, b2)))
        return found

    def _replaced(self, rows: range, columns: range) -> list[TextPair]:
        """The pairs of a replaced block: by characters, then by meaning in the gaps left."""
        by_text = _in_order(rows, columns, self._character_scores(rows, columns), BY_TEXT)
        found: list[TextPair] = []
        next_a, next_b = rows.start, columns.start
        for pair in [*by_text, TextPair(rows.stop, columns.stop, "", 0.0)]:
            gap_a, gap_b = range(next_a, pair.a), range(next_b, pair.b)
            if gap_a and gap_b:
                found.extend(self._by_meaning(gap_a, gap_b))
            if pair.method:
                found.append(pair)
            next_a, next_b = pair.a + 1, pair.b + 1
        return found

    def _character_scores(self, rows: range, columns: range) -> dict[tuple[int, int], float]:
        """``difflib``'s ratio of each pair at least ``threshold`` (cheap bounds first)."""
        scores: dict[tuple[int, int], float] = {}
        matcher = difflib.SequenceMatcher(None, autojunk=False)
        for j in columns:
            right = self.b[j]
            matcher.set_seq2(right)  # difflib caches its index of the second text
            for i in rows:
                left = self.a[i]
                total = len(left) + len(right)
                if total == 0 or 2 * min(len(left), len(right)) < self.threshold * total:
                    continue
                matcher.set_seq1(left)
                if matcher.quick_ratio() >= self.threshold:
                    ratio = matcher.ratio()
                    if ratio >= self.threshold:
                        scores[(i, j)] = ratio
        return scores

    def _by_meaning(self, rows: range, columns: range) -> list[TextPair]:
        similarity = self.similarity
        if similarity is None:
            similarity = self.similarity = default_similarity()
        self.asked = similarity.name
        matrix = similarity.table([self.a[i] for i in rows], [self.b[j] for j in columns])
        scores = {
            (i, j): value
            for i, row in zip(rows, matrix, strict=True)
            for j, value in zip(columns, row, strict=True)
            if value >= self.threshold
        }
        return _in_order(rows, columns, scores, similarity.name)


def _in_order(
    rows: range, columns: range, scores: Mapping[tuple[int, int], float], method: str
) -> list[TextPair]:
    """The pairs among ``scores`` that keep both sides' order with the largest total score.

    A dynamic programme over the block (a longest common subsequence weighted by the scores);
    where two choices tie, the earlier pair wins.
    """
    if not scores:
        return []
    height, width = len(rows), len(columns)
    best = [[0.0] * (width + 1) for _ in range(height + 1)]
    for i in range(height - 1, -1, -1):
        below, here = best[i + 1], best[i]
        for j in range(width - 1, -1, -1):
            value = max(below[j], here[j + 1])
            score = scores.get((rows[i], columns[j]))
            if score is not None and score + below[j + 1] >= value:
                value = score + below[j + 1]
            here[j] = value
    found: list[TextPair] = []
    i = j = 0
    while i < height and j < width:
        score = scores.get((rows[i], columns[j]))
        if score is not None and best[i][j] == score + best[i + 1][j + 1]:
            found.append(TextPair(rows[i], columns[j], method, score))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return found
