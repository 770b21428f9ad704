r"""Published chunks as spans of the response they were cut from, whitespace differences allowed.

A study that publishes a response cut into pieces often normalises the pieces' whitespace (a
``\n\n`` between two merged sentences becomes a space), so a piece is not always a substring of
the response. ``chunk_spans`` finds each chunk in order, its words in the response with any
whitespace between them, and returns one span per chunk that together cover the response: each
span runs from its chunk's first character to the next chunk's, the first from 0 and the last to
the end, so the text between chunks stays with the chunk before it and the segments are lossless.

Example:
    >>> text = "Okay.\n\nSo x = 2.  Then y.\n</think> Done"
    >>> spans = chunk_spans(text, ["Okay.", "So x = 2. Then y."])
    >>> [text[start:end] for start, end in spans]
    ['Okay.\n\n', 'So x = 2.  Then y.\n</think> Done']

"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["ChunkAlignmentError", "chunk_spans"]


class ChunkAlignmentError(ValueError):
    """A chunk whose words do not follow the previous chunk in the response.

    Example:
        >>> ChunkAlignmentError(3, "x", 10).chunk
        3

    """

    def __init__(self, chunk: int, text: str, searched_from: int) -> None:
        self.chunk = chunk
        """The chunk's position (0-based)."""
        shown = text if len(text) <= 60 else text[:57] + "..."
        super().__init__(
            f"chunk {chunk} ({shown!r}) is not in the response after character {searched_from}"
            " (its words, in order, with any whitespace between them)"
        )


def chunk_spans(text: str, chunks: Sequence[str]) -> list[tuple[int, int]]:
    """One ``(start, end)`` per chunk, covering ``text`` (see the module).

    A chunk must start within the text that follows the previous chunk with only whitespace
    before it (else the response has words no chunk holds, and the chunks are not its cut); an
    empty chunk, or one that is not found, is a ``ChunkAlignmentError`` naming it.

    Example:
        >>> chunk_spans("A b. C.", ["A b.", "D."])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.traces.importers._chunk_spans.ChunkAlignmentError: chunk 1 ('D.') is not in ...
        >>> chunk_spans("", [])
        []

    """
    starts: list[int] = []
    cursor = 0
    for number, chunk in enumerate(chunks):
        words = chunk.split()
        if not words:
            raise ChunkAlignmentError(number, chunk, cursor)
        pattern = re.compile(r"\s*".join(re.escape(word) for word in words))
        found = pattern.search(text, cursor)
        if found is None or text[cursor : found.start()].strip():
            raise ChunkAlignmentError(number, chunk, cursor)
        starts.append(found.start())
        cursor = found.end()
    if not starts:
        return []
    starts[0] = 0  # what comes before the first chunk stays with it
    ends = [*starts[1:], len(text)]
    return list(zip(starts, ends, strict=True))
