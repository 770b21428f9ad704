"""How a trajectory asks its backend for the next segment: the continuation-strategy contract.

A strategy is made for one trajectory and keeps that trajectory's generated text that is not a
complete segment yet. ``request`` asks for (at least) one more segment; ``absorb`` takes the
backend's answer and returns the segments it completed, and whether generation has ended;
``complete`` splits the rest of the response, generated in one call, into its segments.

Example:
    >>> from llenvs.core.segmenters import SentenceSegmenter
    >>> from llenvs.evaluation.episodes._boundary_strategy import BoundaryContinuationStrategy
    >>> strategy = BoundaryContinuationStrategy(SentenceSegmenter())
    >>> isinstance(strategy, ContinuationStrategy), strategy.buffer
    (True, '')

"""

from __future__ import annotations

from abc import ABC, abstractmethod

from llenvs.core import Generation, GenerationRequest, Prompt, SamplingParams
from llenvs.core.segmenters import Segmenter

__all__ = ["ContinuationStrategy"]


class ContinuationStrategy(ABC):
    r"""One trajectory's way of generating segment by segment.

    Example:
        >>> from llenvs.core.segmenters import LineSegmenter
        >>> from llenvs.evaluation.episodes._boundary_strategy import BoundaryContinuationStrategy
        >>> BoundaryContinuationStrategy(LineSegmenter()).complete("a\nb", "\nc")
        ['a\n', 'b\n', 'c']

    """

    def __init__(self, segmenter: Segmenter) -> None:
        self.segmenter = segmenter

    @property
    @abstractmethod
    def buffer(self) -> str:
        """Generated text that is not yet part of a returned segment (the overshoot)."""

    @abstractmethod
    def request(self, prompt: Prompt, params: SamplingParams, budget: int) -> GenerationRequest:
        """A request for the next segment, spending at most ``budget`` tokens."""

    @abstractmethod
    def absorb(self, generation: Generation, budget: int) -> tuple[list[str], bool]:
        """The segments ``generation`` completed, and whether generation has ended.

        ``budget`` is what is left of the token budget after this generation. When generation
        has ended, the segments include the rest of the buffer.
        """

    @abstractmethod
    def drop(self) -> None:
        """Forget the buffer (an intervention changed the text it would continue)."""

    def complete(self, carried: str, generated: str) -> list[str]:
        """The segments of ``carried`` + the buffer + ``generated``: the rest of the response.

        ``carried`` is text already cut into segments but not stepped; the buffer is dropped.
        """
        rest = carried + self.buffer + generated
        self.drop()
        return self.segmenter.pieces(rest)

    def one_shot_request(
        self, prompt: Prompt, params: SamplingParams, budget: int
    ) -> GenerationRequest:
        """A request for the whole rest of the response, spending at most ``budget`` tokens."""
        return GenerationRequest(prompt, params, budget)
