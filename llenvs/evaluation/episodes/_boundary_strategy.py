"""``BoundaryContinuationStrategy``: generate until a segment boundary, keep the overshoot.

For text-pattern segmenters (sentence, line, pattern, composite). Each call asks the backend to
stop once the buffer plus the new text holds a complete segment; the text is fed to the
trajectory's ``segmenter.stream()``, and what runs past the boundary stays in its buffer for the
next segment. When the backend stops for any other reason, the rest of the buffer is split into
the last segments, exactly as replay would split it (invariant 2).

Example:
    >>> from llenvs.core._backend import FinishReason, Generation
    >>> from llenvs.core.segmenters import SentenceSegmenter
    >>> strategy = BoundaryContinuationStrategy(SentenceSegmenter())
    >>> strategy.absorb(Generation("One. Tw", FinishReason.BOUNDARY), budget=10)
    (['One. '], False)
    >>> strategy.buffer
    'Tw'
    >>> strategy.absorb(Generation("o. Three.", FinishReason.STOP), budget=7)
    (['Two. ', 'Three.'], True)

"""

from __future__ import annotations

from llenvs.core import (
    BoundaryFn,
    FinishReason,
    Generation,
    GenerationRequest,
    Prompt,
    SamplingParams,
)
from llenvs.core.segmenters import Segmenter, SegmentStream
from llenvs.evaluation.episodes._continuation_strategy import ContinuationStrategy

__all__ = ["BoundaryContinuationStrategy"]


class BoundaryContinuationStrategy(ContinuationStrategy):
    r"""Generate text in chunks and cut it at the segmenter's boundaries.

    Refuses a segmenter that cannot find boundaries while streaming (an LLM segmenter).

    Example:
        >>> from llenvs.core.segmenters import LineSegmenter
        >>> from llenvs.core._backend import Message
        >>> strategy = BoundaryContinuationStrategy(LineSegmenter())
        >>> request = strategy.request(Prompt((Message("user", "q"),)), SamplingParams(), 50)
        >>> request.max_tokens, request.stop_at("a\nb"), request.stop_at("a\n")
        (50, 2, None)

    """

    def __init__(self, segmenter: Segmenter) -> None:
        super().__init__(segmenter)
        try:
            segmenter.find_boundary("x")
        except NotImplementedError:
            raise ValueError(
                f"the segmenter {segmenter.spec!r} cannot find boundaries while text is being "
                "generated (it is replay-only): use it with SegmentedEnvironment.replay, or "
                "generate with a text-pattern or token segmenter"
            ) from None
        self._stream: SegmentStream = segmenter.stream()

    @property
    def buffer(self) -> str:
        """Generated text past the last boundary (the overshoot)."""
        return self._stream.buffer

    def request(self, prompt: Prompt, params: SamplingParams, budget: int) -> GenerationRequest:
        """Ask for text until the buffer plus the new text holds a complete segment."""
        return GenerationRequest(prompt, params, budget, self._stop_at())

    def absorb(self, generation: Generation, budget: int) -> tuple[list[str], bool]:
        """Feed the text to the stream; at the end of generation, close it."""
        pieces = self._stream.feed(generation.text)
        ended = (
            generation.finish_reason is not FinishReason.BOUNDARY
            or budget <= 0
            or not generation.text
        )
        if ended:
            pieces.extend(self._stream.close())
            self._stream = self.segmenter.stream()
        return pieces, ended

    def drop(self) -> None:
        """Start a new stream; the overshoot is forgotten."""
        self._stream = self.segmenter.stream()

    def _stop_at(self) -> BoundaryFn:
        """A boundary test on the text of one call, seen after the current buffer."""
        return _BoundaryProbe(self.segmenter, self._stream.buffer)


class _BoundaryProbe:
    """``stop_at`` for one call: whether the buffer plus ``generated`` holds a whole segment.

    A backend calls it after every token with a growing text; it resumes its scan where the
    previous call on a prefix of the text settled, so a long segment is scanned once, not once
    per token. Any text is answered correctly (the resume is used only on an extension).
    """

    def __init__(self, segmenter: Segmenter, head: str) -> None:
        self.segmenter = segmenter
        self.head = head
        self.last = ""
        self.settled = 0

    def __call__(self, generated: str) -> int | None:
        text = self.head + generated
        resume = self.settled if text.startswith(self.last) else 0
        cut = self.segmenter.first_cut(text, resume)
        self.last, self.settled = text, (cut.settled if cut.end is None else 0)
        return None if cut.end is None else max(cut.end - len(self.head), 0)
