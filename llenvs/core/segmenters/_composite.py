r"""``CompositeSegmenter``: cut wherever any of its children cuts.

The first cut of a composite is the earliest first cut of its children; after it, every child
starts afresh on the rest, as a stream does. For children whose rules do not look across each
other's cuts (lines and sentences do not) the cuts are the union of the children's cuts on the
whole text, less a cut that would leave a piece of whitespace only (``"Done.\n  Next"`` with lines
and sentences is ``["Done.\n", "  Next"]``: the sentence cut before ``Next`` would leave ``"  "``).

Children that are not text-pattern segmenters: with a ``TokenSegmenter`` child, ``segment``
returns the exact pieces (as soon as one child does not trim, no piece is trimmed), and each
rest after a cut is tokenised afresh, as the token segmenter alone does. A child that is
replay-only (``LLMSegmenter``) is asked once about the whole text: the cuts are the union of every
child's cuts on the whole text (less those leaving a piece of whitespace only), and streaming
raises ``NotImplementedError``.

While streaming, the earliest decided child cut ``c`` is decided once every undecided child has
``settled >= c`` (none of them can cut earlier); the composite's ``settled`` is the smallest of
its children's. Nested composites are flattened.

Example:
    >>> from llenvs.core.segmenters._line import LineSegmenter
    >>> from llenvs.core.segmenters._sentence import SentenceSegmenter
    >>> seg = CompositeSegmenter((LineSegmenter("\n\n"), SentenceSegmenter()))
    >>> seg.pieces("Add 2. Then 3.\n\nSo 5.")
    ['Add 2. ', 'Then 3.\n\n', 'So 5.']

"""

from __future__ import annotations

from collections.abc import Sequence

from llenvs.core.segmenters._base import FirstCut, Segmenter
from llenvs.core.segmenters._line import LineSegmenter
from llenvs.core.segmenters._scanning import ScanningSegmenter
from llenvs.core.segmenters._sentence import SentenceSegmenter

__all__ = ["CompositeSegmenter"]


class CompositeSegmenter(ScanningSegmenter):
    r"""Cut wherever any child segmenter cuts (lines, then sentences, by default).

    Example:
        >>> CompositeSegmenter().segment("Hi there. How are you?\nFine")
        ['Hi there.', 'How are you?', 'Fine']
        >>> CompositeSegmenter(()).spec
        Traceback (most recent call last):
        ...
        ValueError: CompositeSegmenter needs at least one child segmenter, got none

    """

    def __init__(
        self, segmenters: Sequence[Segmenter] = (LineSegmenter(), SentenceSegmenter())
    ) -> None:
        children: list[Segmenter] = []
        for child in segmenters:
            if isinstance(child, CompositeSegmenter):
                children.extend(child.segmenters)
            elif isinstance(child, Segmenter):
                children.append(child)
            else:
                raise TypeError(f"CompositeSegmenter children must be segmenters, got {child!r}")
        if not children:
            raise ValueError("CompositeSegmenter needs at least one child segmenter, got none")
        self._segmenters = tuple(children)

    @property
    def segmenters(self) -> tuple[Segmenter, ...]:
        """The children, in the order given (nested composites flattened)."""
        return self._segmenters

    @property
    def spec(self) -> str:
        r"""``"composite:"`` and the children's specs joined by ``+``.

        Example:
            >>> CompositeSegmenter((LineSegmenter("\n\n"), SentenceSegmenter())).spec
            'composite:line:\\n\\n+sentence'

        """
        return "composite:" + "+".join(child.spec for child in self._segmenters)

    @property
    def replay_only(self) -> bool:  # type: ignore[override]
        """True when a child is replay-only (an ``LLMSegmenter``)."""
        return any(child.replay_only for child in self._segmenters)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Cut wherever a child cuts (see the module docstring for replay-only children)."""
        if not self.replay_only:
            return super().spans(text)
        cuts = sorted({end for child in self._segmenters for _, end in child.spans(text)})
        kept: list[int] = [0]
        for cut in cuts:
            if cut >= len(text) or not text[kept[-1] : cut].strip():
                continue
            kept.append(cut)
        if len(kept) > 1 and not text[kept[-1] :].strip():
            kept.pop()
        return [(a, b) for a, b in zip(kept, [*kept[1:], len(text)], strict=True) if b > a]

    def first_cut(self, buffer: str, resume: int = 0) -> FirstCut:
        """See ``ScanningSegmenter.first_cut``; refused when a child is replay-only."""
        if self.replay_only:
            raise NotImplementedError(
                f"{self.spec!r} has a replay-only child (LLMSegmenter), so it cannot decide "
                "boundaries while streaming; segment complete texts with spans()/segment()"
            )
        return super().first_cut(buffer, resume)

    def segment(self, text: str) -> list[str]:
        """Trimmed pieces when every child trims (text-pattern children), else exact pieces.

        Example:
            >>> CompositeSegmenter().segment(" One.  Two. ")
            ['One.', 'Two.']

        """
        if all(child.trims for child in self._segmenters):
            return super().segment(text)
        return self.pieces(text)

    def scan(self, buffer: str, resume: int = 0, *, final: bool = False) -> FirstCut:
        r"""The earliest first cut of the children (see ``ScanningSegmenter.scan``).

        Example:
            >>> CompositeSegmenter().scan("A.\nB", final=False)
            FirstCut(end=3, settled=3)

        """
        cuts = [_child_cut(child, buffer, resume, final) for child in self._segmenters]
        decided = [cut.end for cut in cuts if cut.end is not None]
        if final:
            first = min(decided, default=None)
            return FirstCut(first, len(buffer) if first is None else first)
        waiting = [cut.settled for cut in cuts if cut.end is None]
        if decided:
            first = min(decided)
            if all(settled >= first for settled in waiting):
                return FirstCut(first, first)
        return FirstCut(None, min(decided + waiting))


def _child_cut(child: Segmenter, buffer: str, resume: int, final: bool) -> FirstCut:
    """A child's first cut; children that are not scanners start from 0 and use ``spans``."""
    if isinstance(child, ScanningSegmenter):
        return child.scan(buffer, resume, final=final)
    cut = child.first_cut(buffer)
    if not final or cut.decided:
        return cut
    spans = child.spans(buffer)
    if len(spans) < 2:
        return FirstCut(None, len(buffer))
    return FirstCut(spans[0][1], spans[0][1])
