"""``TokenContinuationStrategy``: one call of ``token_size`` tokens is one segment.

It applies to a segmenter that cuts every ``token_size`` tokens of a tokenizer (it has
``tokenizer`` and ``token_size``) when the backend generates with that same tokenizer (the
one its ``capabilities`` declare: the same object, or one of the same class with the same
vocabulary and special tokens, as when the model's tokenizer is loaded twice or from another
copy): then a call of ``max_tokens = token_size`` is exactly one segment, and no text runs
past a boundary. The segments are the model's own tokens, which need not be the canonical
tokenisation of the text (a generated trace keeps the spans it was generated with).

Example:
    >>> from llenvs.core._backend import FinishReason, Generation
    >>> from llenvs.core.segmenters import LineSegmenter
    >>> strategy = TokenContinuationStrategy(LineSegmenter(), token_size=4)
    >>> strategy.absorb(Generation("Two dogs", FinishReason.LENGTH, (1, 2, 3, 4)), budget=8)
    (['Two dogs'], False)
    >>> strategy.absorb(Generation(".", FinishReason.STOP, (5,)), budget=7)
    (['.'], True)

"""

from __future__ import annotations

from typing import Any

from llenvs.core import (
    FinishReason,
    Generation,
    GenerationRequest,
    ModelBackend,
    Prompt,
    SamplingParams,
)
from llenvs.core.segmenters import Segmenter
from llenvs.evaluation.episodes._continuation_strategy import ContinuationStrategy

__all__ = ["TokenContinuationStrategy", "same_tokenizer"]


def same_tokenizer(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` tokenise alike: one object, or equal vocabularies and specials.

    Tokenizers without ``get_vocab`` (tiktoken encodings) match by identity or by name.

    Example:
        >>> from llenvs.core.segmenters._tokenizers import get_tiktoken_encoding
        >>> enc = get_tiktoken_encoding("cl100k_base")
        >>> same_tokenizer(enc, enc), same_tokenizer(enc, None), same_tokenizer(None, None)
        (True, False, False)

    """
    if a is None or b is None:
        return False
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if not callable(getattr(a, "get_vocab", None)):
        name = getattr(a, "name", None)
        return isinstance(name, str) and name == getattr(b, "name", None)
    if len(a) != len(b) or a.all_special_tokens != b.all_special_tokens:
        return False
    same: bool = a.get_vocab() == b.get_vocab()
    return same


class TokenContinuationStrategy(ContinuationStrategy):
    """Generate ``token_size`` tokens per call; each call is one segment.

    Example:
        >>> from llenvs.core.segmenters import LineSegmenter
        >>> TokenContinuationStrategy(LineSegmenter(), token_size=0)
        Traceback (most recent call last):
        ...
        ValueError: token_size must be > 0, got 0

    """

    def __init__(self, segmenter: Segmenter, token_size: int) -> None:
        super().__init__(segmenter)
        if token_size <= 0:
            raise ValueError(f"token_size must be > 0, got {token_size}")
        self.token_size = token_size

    @staticmethod
    def applies(segmenter: Segmenter, backend: ModelBackend) -> bool:
        """True when ``segmenter`` cuts by tokens of the tokenizer ``backend`` generates with.

        The backend's tokenizer is the one its ``capabilities`` declare (loaded only here, when
        the segmenter cuts by tokens).

        Example:
            >>> from llenvs.core.segmenters import SentenceSegmenter
            >>> TokenContinuationStrategy.applies(SentenceSegmenter(), get_backend("scripted"))
            False

        """
        tokenizer = getattr(segmenter, "tokenizer", None)
        size = getattr(segmenter, "token_size", None)
        if tokenizer is None or not isinstance(size, int):
            return False
        return same_tokenizer(backend.capabilities.tokenizer(), tokenizer)

    @property
    def buffer(self) -> str:
        """Always empty: no call runs past a boundary."""
        return ""

    def request(self, prompt: Prompt, params: SamplingParams, budget: int) -> GenerationRequest:
        """Ask for one segment: ``token_size`` tokens (fewer when the budget is nearly spent)."""
        return GenerationRequest(prompt, params, min(self.token_size, budget))

    def absorb(self, generation: Generation, budget: int) -> tuple[list[str], bool]:
        """The call's text is one segment; generation ends unless the call hit its length."""
        ended = (
            generation.finish_reason is not FinishReason.LENGTH
            or budget <= 0
            or not generation.text
        )
        return ([generation.text] if generation.text else []), ended

    def drop(self) -> None:
        """Nothing to forget."""
