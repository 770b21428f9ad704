r"""``SegmenterSpec``: which segmenter cuts a run's responses, as its spec string says.

A value around the spec strings of ``llenvs.core.segmenters.spec`` (``steps``, ``sentence``,
``line:\n\n``, ``token:64:cl100k_base``, ``composite:line:\n\n+sentence``, ``llm``...). Parsing
checks the segmenter's name and nothing that would load a tokenizer; ``build`` makes the
segmenter (``backend``: the model an ``llm`` segmenter asks).

Example:
    >>> spec = SegmenterSpec.parse("line:\n\n")
    >>> spec.build().segment("One.\n\nTwo.")
    ['One.', 'Two.']
    >>> SegmenterSpec.from_record(spec.to_record()) == spec
    True
    >>> SegmenterSpec.parse("sentense")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llenvs.core.errors.UnknownName: unknown segmenter 'sentense': choose one of: composite, ...

"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from llenvs.core.errors import UnknownName
from llenvs.core.segmenters.spec import segmenter_from_spec, segmenter_names
from llenvs.core.spec.record_fields import RecordFields

if TYPE_CHECKING:
    from llenvs.core.backend import ModelBackend
    from llenvs.core.segmenters.base import Segmenter

__all__ = ["DEFAULT_SEGMENTER", "IMPORTED", "SegmenterSpec"]

DEFAULT_SEGMENTER = "steps"
"""The CLI's and the app's default: paragraphs, then sentences."""

IMPORTED = "imported"
"""The name of a recorded-only spec, ``imported:<source>``: the segments are the ones a source
published (an import), not a segmenter's cut. It is no choice for cutting new text; text
generated after such a trace's segments (a branch, a rollout) is cut into sentences."""


@dataclass(frozen=True)
class SegmenterSpec:
    r"""A segmenter by its spec string.

    Example:
        >>> SegmenterSpec().text, SegmenterSpec().build().spec
        ('steps', 'composite:line:\\n\\n+sentence')

    """

    text: str = DEFAULT_SEGMENTER
    """The spec string (see ``llenvs.core.segmenters.spec``)."""

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"a segmenter spec must be a str, got {type(self.text).__name__}")
        name, _, source = self.text.partition(":")
        if name == IMPORTED and source:
            return
        if name not in segmenter_names():
            raise UnknownName("segmenter", name, segmenter_names())

    @classmethod
    def parse(cls, text: str) -> SegmenterSpec:
        """The spec ``text`` names (its segmenter's name checked, nothing loaded).

        Example:
            >>> SegmenterSpec.parse("token:64").text
            'token:64'

        """
        return cls(text)

    @property
    def name(self) -> str:
        """The spec string."""
        return self.text

    @property
    def imported(self) -> bool:
        """Whether the segments were a source's own (``imported:<source>``), not a cut.

        Example:
            >>> SegmenterSpec("imported:thought-anchors").imported, SegmenterSpec().imported
            (True, False)

        """
        return self.text.partition(":")[0] == IMPORTED

    def build(self, backend: ModelBackend | None = None) -> Segmenter:
        """The segmenter; ``backend`` is the model an ``llm`` segmenter asks.

        An imported trace's new text (a branch, a rollout) is cut into sentences.

        Example:
            >>> SegmenterSpec("sentence").build().segment("One step. Then two.")
            ['One step.', 'Then two.']
            >>> SegmenterSpec("imported:thought-anchors").build().spec  # new text: sentences
            'sentence'

        """
        return segmenter_from_spec("sentence" if self.imported else self.text, backend=backend)

    def to_record(self) -> dict[str, Any]:
        """The JSON object of this spec.

        Example:
            >>> SegmenterSpec("sentence").to_record()
            {'spec': 'sentence'}

        """
        return {"spec": self.text}

    @classmethod
    def from_record(cls, obj: object, what: str = "segmenter") -> SegmenterSpec:
        """The spec of ``to_record``'s object.

        Example:
            >>> SegmenterSpec.from_record({"spec": 3})
            Traceback (most recent call last):
            ...
            ValueError: segmenter.spec: expected a string, got 3

        """
        return cls(RecordFields(obj, what, ("spec",)).text("spec"))
