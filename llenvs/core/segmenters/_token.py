r"""``TokenSegmenter``: fixed-size token chunks, cut from the original text at token offsets.

The first span of a text ends where its ``token_size``-th token ends (``token_ends``: a token
that ends inside a character ends after it, so cuts fall on character boundaries); the rest is
tokenised afresh, as a stream does after each cut. No cut is made when only whitespace would
follow it, so whitespace-only text is one span. The pieces are exact: they concatenate back to
the text (``segment`` does not trim).

Streaming (invariant 2). Adding text can re-tokenise the end of a buffer (``"12"`` may become
``"123"``, ``" a"`` may become ``" ab"``), so a cut is decided only once a *hard boundary* follows
it: a position ``q`` with a non-whitespace character before it, then either a plain space and a
non-whitespace character, or (after a newline) a non-whitespace character. Pre-tokenisers of the
GPT family (tiktoken's cl100k/o200k, byte-level BPE, SentencePiece's metaspace) never join text
across such a position, so the tokens before ``q`` depend on ``buffer[:q + 2]`` only. A buffer
without a hard boundary after its cut waits (at worst until the stream closes).

Example:
    >>> from llenvs.core.segmenters._tokenizers import get_tiktoken_encoding
    >>> seg = TokenSegmenter(tokenizer=get_tiktoken_encoding("cl100k_base"), token_size=2)
    >>> seg.segment("The total is 12 legs.")
    ['The total', ' is ', '12 legs', '.']
    >>> seg.find_boundary("The total"), seg.find_boundary("The total is")
    (None, 9)
    >>> seg.spec
    'token:2:cl100k_base'

"""

from __future__ import annotations

from typing import Any, ClassVar

import regex

from llenvs.core.segmenters._base import FirstCut, Segmenter
from llenvs.core.segmenters._scanning import WHITESPACE, first_non_whitespace
from llenvs.core.segmenters._spec_fields import escape_field
from llenvs.core.segmenters._tokenizers import token_ends, tokenizer_name

__all__ = ["TokenSegmenter"]

_NON_SPACE = "[^" + regex.escape(WHITESPACE) + "]"
_HARD_BOUNDARY = regex.compile(rf"(?r)(?<={_NON_SPACE}) {_NON_SPACE}|(?<=\n){_NON_SPACE}(?s:.)")
"""Matches ``text[q:q + 2]`` at a hard boundary ``q``; searched backwards, the last one first."""

_WINDOW = 16
"""Characters per token of the first window ``first_cut`` tokenises (it doubles as needed)."""


class TokenSegmenter(Segmenter):
    r"""Chunks of ``token_size`` tokens of any tokenizer with ``encode`` and ``decode``.

    Example:
        >>> from llenvs.core.segmenters._tokenizers import get_tiktoken_encoding
        >>> seg = TokenSegmenter(tokenizer=get_tiktoken_encoding("cl100k_base"), token_size=1)
        >>> seg.pieces("a 🙂\n\n")
        ['a', ' 🙂\n\n']
        >>> TokenSegmenter(tokenizer=object(), token_size=0)
        Traceback (most recent call last):
        ...
        ValueError: token_size must be > 0, got 0

    """

    trims: ClassVar[bool] = False

    def __init__(self, tokenizer: Any, token_size: int = 64) -> None:
        if isinstance(token_size, bool) or not isinstance(token_size, int):
            raise TypeError(f"token_size must be an int, got {token_size!r}")
        if token_size <= 0:
            raise ValueError(f"token_size must be > 0, got {token_size}")
        if not (callable(getattr(tokenizer, "encode", None))):
            raise TypeError(
                f"tokenizer must have encode(str) and decode(list[int]), got {tokenizer!r}"
            )
        self._tokenizer = tokenizer
        self._token_size = token_size
        self._name = tokenizer_name(tokenizer)

    @property
    def tokenizer(self) -> Any:
        """The tokenizer the tokens come from."""
        return self._tokenizer

    @property
    def token_size(self) -> int:
        """Tokens per segment."""
        return self._token_size

    @property
    def spec(self) -> str:
        """``token:<size>:<tokenizer name>``; ``<unnamed ...>`` for a tokenizer without a name.

        Example:
            >>> TokenSegmenter(tokenizer=type("Mine", (), {"encode": len})(), token_size=8).spec
            'token:8:<unnamed Mine>'

        """
        name = self._name or f"<unnamed {type(self._tokenizer).__name__}>"
        return f"token:{self._token_size}:{escape_field(name)}"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TokenSegmenter) or type(other) is not type(self):
            return False
        if self._name is None or other._name is None:
            return other._tokenizer is self._tokenizer and other._token_size == self._token_size
        return other.spec == self.spec

    def __hash__(self) -> int:
        return hash(("TokenSegmenter", self.spec))

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Chunks of ``token_size`` tokens, each rest tokenised afresh (as a stream does)."""
        spans: list[tuple[int, int]] = []
        start = 0
        while start < len(text):
            rest = text[start:]
            cut = self.first_cut(rest).end
            if cut is None:
                cut = self._final_cut(rest)
            end = start + (cut if cut is not None else len(rest))
            spans.append((start, end))
            start = end
        return spans

    def first_cut(self, buffer: str, resume: int = 0) -> FirstCut:
        """The end of the first ``token_size`` tokens once a hard boundary follows it."""
        limit = _WINDOW * self._token_size
        while True:
            window = min(limit, len(buffer))
            boundary = _last_hard_boundary(buffer, window)
            if boundary is not None:
                ends = token_ends(self._tokenizer, buffer[: boundary + 2])
                if len(ends) >= self._token_size and ends[self._token_size - 1] <= boundary:
                    cut = ends[self._token_size - 1]
                    return FirstCut(cut, cut)
            if window >= len(buffer):
                return FirstCut(None, boundary or 0)
            limit *= 2

    def _final_cut(self, text: str) -> int | None:
        """The first cut of a whole text, or None when it is one span."""
        ends = token_ends(self._tokenizer, text)
        if len(ends) <= self._token_size:
            return None
        cut = ends[self._token_size - 1]
        if cut >= len(text) or first_non_whitespace(text, cut) is None:
            return None
        return cut


def _last_hard_boundary(text: str, window: int) -> int | None:
    r"""The last hard boundary ``q`` (see the module docstring) with ``q + 2 <= window``.

    Example:
        >>> _last_hard_boundary("ab cd\nef", 8), _last_hard_boundary("ab cd\nef", 6)
        (6, 2)

    """
    found = _HARD_BOUNDARY.search(text, 0, window)
    return None if found is None else found.start()
