"""Any object with ``score(text) -> float`` as a PRM: the guide's duck-typed ``prm_model``.

The guide's ``PRMRewardFunction`` calls ``prm.score(accumulated)`` with the response so far.
``TextScorerPRM`` does exactly that for each step: step k's score is ``score`` of the text of
steps 0..k joined (the question is not passed: the guide's scorer never sees it). The scores are
passed through as the scorer returns them.

Example:
    >>> class Length:
    ...     def score(self, text):
    ...         return len(text) / 100
    >>> TextScorerPRM(Length()).score_steps("q", ["Two dogs. ", "8 legs."])
    [0.1, 0.17]

"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

__all__ = ["TextScorer", "TextScorerPRM"]


@runtime_checkable
class TextScorer(Protocol):
    """Scores a response so far (the guide's ``prm_model``).

    Example:
        >>> class Half:
        ...     def score(self, text):
        ...         return 0.5
        >>> isinstance(Half(), TextScorer)
        True

    """

    def score(self, text: str) -> float:
        """The score of the text so far."""
        ...


class TextScorerPRM:
    """A ``TextScorer`` as a PRM: one ``score`` call per step, on the text up to that step.

    Example:
        >>> class Ends:
        ...     def score(self, text):
        ...         return 1.0 if text.endswith(".") else 0.0
        >>> TextScorerPRM(Ends()).score_steps("q", ["A.", " B"])
        [1.0, 0.0]

    """

    def __init__(self, scorer: TextScorer) -> None:
        if not callable(getattr(scorer, "score", None)):
            raise TypeError(f"scorer must have a score(text) method, got {scorer!r}")
        self.scorer = scorer

    def score_steps(self, question: str, steps: Sequence[str]) -> list[float]:
        """``scorer.score`` of the accumulated text after each step."""
        scores: list[float] = []
        text = ""
        for step in steps:
            text += step
            scores.append(float(self.scorer.score(text)))
        return scores

    def __repr__(self) -> str:
        return f"TextScorerPRM({self.scorer!r})"
