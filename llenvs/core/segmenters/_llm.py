r"""``LLMSegmenter``: a model proposes the steps; they are mapped onto exact spans of the text.

The backend gets the prompt template with ``{raw_generation}`` replaced by the text (plain
replacement, so other braces in a template need no escaping) and answers with a JSON array of
step strings. Each proposed step is found in the text by greedy substring matching, left to
right: exactly, or else with any run of whitespace matching any other run (models often rewrap
lines). Every matched step after the first starts a new span; text that no step matched stays
with the span before it, and proposed steps that match nothing are skipped. Output that does not
parse, or steps that match nothing, give one span: the whole text. The spans are exact pieces,
so they always concatenate back to the text.

A model call per text is too expensive for streaming: ``first_cut``/``find_boundary`` raise
``NotImplementedError``; use replay. Answers are cached per text, so ``spans``, ``pieces`` and
``segment`` on the same text call the backend once.

Example:
    >>> backend = get_backend(
    ...     "scripted", outputs=['["Let me think about this. ", "The key insight is..."]']
    ... )
    >>> LLMSegmenter(backend=backend).segment("Let me think about this. The key insight is...")
    ['Let me think about this. ', 'The key insight is...']

"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable
from itertools import pairwise
from typing import ClassVar

import regex

from llenvs.core._backend import GenerationRequest, Message, ModelBackend, Prompt, SamplingParams
from llenvs.core.segmenters._base import FirstCut, Segmenter
from llenvs.core.segmenters._scanning import WHITESPACE, first_non_whitespace
from llenvs.core.segmenters._spec_fields import escape_field

__all__ = ["DEFAULT_PROMPT_TEMPLATE", "LLMSegmenter", "match_steps", "parse_json_steps"]

DEFAULT_PROMPT_TEMPLATE = (
    "Split the following reasoning into its individual steps. Copy the text exactly, without "
    "changing, adding or leaving out anything, and answer with only a JSON array of strings, "
    "one string per step, in order.\n\n"
    "Text:\n{raw_generation}"
)
"""The default prompt; ``{raw_generation}`` stands for the text to segment."""

Parser = Callable[[str, str], list[str]]
"""``(original text, model response) -> proposed steps``."""

_CACHE_SIZE = 64
_SPACE_RUN = "[" + regex.escape(WHITESPACE) + "]+"


def parse_json_steps(original: str, response: str) -> list[str]:
    """The default parser: the first JSON array of strings in ``response`` (else no steps).

    Example:
        >>> parse_json_steps("ab", 'Sure: ["a", "b"] done'), parse_json_steps("ab", "no")
        (['a', 'b'], [])

    """
    del original
    start = response.find("[")
    while start != -1:
        try:
            value, _ = json.JSONDecoder().raw_decode(response, start)
        except json.JSONDecodeError:
            start = response.find("[", start + 1)
            continue
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return list(value)
        start = response.find("[", start + 1)
    return []


def match_steps(text: str, steps: list[str]) -> list[int]:
    r"""The cuts that proposed ``steps`` make in ``text`` (greedy, left to right).

    Each step is looked for from where the previous match ended: exactly, else with whitespace
    runs matching any whitespace run. A matched step after the first matched one cuts at its
    start (its first non-whitespace character); unmatched steps are skipped.

    Example:
        >>> match_steps("A b.\nC  d. E", ["A b.", "C d.", "missing", "E"])
        [5, 11]

    """
    cuts: list[int] = []
    position = 0
    matched_any = False
    for step in steps:
        words = step.split()
        if not words:
            continue
        stripped = step.strip()
        start = text.find(stripped, position)
        if start != -1:
            end = start + len(stripped)
        else:
            pattern = _SPACE_RUN.join(regex.escape(word) for word in words)
            found = regex.compile(pattern).search(text, position)
            if found is None:
                continue
            start, end = found.span()
        if matched_any and start > (cuts[-1] if cuts else 0):
            cuts.append(start)
        matched_any = True
        position = end
    return cuts


class LLMSegmenter(Segmenter):
    """Steps proposed by a model, mapped onto exact spans (replay only).

    Example:
        >>> LLMSegmenter(backend=get_backend("scripted", outputs=["x"]), prompt_template="Hi")
        Traceback (most recent call last):
        ...
        ValueError: prompt_template must contain {raw_generation} (where the text goes), got 'Hi'

    """

    trims: ClassVar[bool] = False
    replay_only: ClassVar[bool] = True

    def __init__(
        self,
        backend: ModelBackend,
        prompt_template: str = DEFAULT_PROMPT_TEMPLATE,
        parser: Parser | None = None,
        *,
        max_tokens: int = 4096,
    ) -> None:
        if "{raw_generation}" not in prompt_template:
            raise ValueError(
                "prompt_template must contain {raw_generation} (where the text goes), "
                f"got {prompt_template!r}"
            )
        if not isinstance(backend, ModelBackend):
            raise TypeError(
                f"backend must be a ModelBackend (name, capabilities, generate), got {backend!r}"
            )
        self._backend = backend
        self._template = prompt_template
        self._parser: Parser = parser or parse_json_steps
        self._max_tokens = max_tokens
        self._cache: OrderedDict[str, list[tuple[int, int]]] = OrderedDict()

    @property
    def backend(self) -> ModelBackend:
        """The backend that proposes the steps."""
        return self._backend

    @property
    def prompt_template(self) -> str:
        """The prompt, with ``{raw_generation}`` where the text goes."""
        return self._template

    @property
    def spec(self) -> str:
        r"""``llm`` (default template) or ``llm:<template>``; the backend is given in code.

        Example:
            >>> backend = get_backend("scripted", outputs=[])
            >>> LLMSegmenter(backend).spec, LLMSegmenter(backend, "Split: {raw_generation}").spec
            ('llm', 'llm:Split\\: {raw_generation}')

        """
        if self._template == DEFAULT_PROMPT_TEMPLATE:
            return "llm"
        return "llm:" + escape_field(self._template)

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is type(self)
            and isinstance(other, LLMSegmenter)
            and other._template == self._template
            and other._backend is self._backend
            and other._parser is self._parser
        )

    def __hash__(self) -> int:
        return hash(("LLMSegmenter", self._template))

    def prompt(self, text: str) -> str:
        """The prompt the backend gets for ``text``."""
        return self._template.replace("{raw_generation}", text)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The spans of the steps the model proposes (one span when none can be used)."""
        if not text:
            return []
        if text in self._cache:
            self._cache.move_to_end(text)
            return list(self._cache[text])
        spans = self._propose(text)
        self._cache[text] = spans
        if len(self._cache) > _CACHE_SIZE:
            self._cache.popitem(last=False)
        return list(spans)

    def _propose(self, text: str) -> list[tuple[int, int]]:
        if first_non_whitespace(text) is None:
            return [(0, len(text))]
        request = GenerationRequest(
            Prompt((Message("user", self.prompt(text)),)),
            SamplingParams(max_tokens=self._max_tokens, temperature=0.0),
            self._max_tokens,
        )
        response = self._backend.generate([request])[0].text
        try:
            steps = self._parser(text, response)
        except ValueError:
            steps = []
        if not isinstance(steps, list) or not all(isinstance(step, str) for step in steps):
            steps = []
        cuts = [0, *match_steps(text, steps), len(text)]
        return [(a, b) for a, b in pairwise(cuts) if b > a]

    def first_cut(self, buffer: str, resume: int = 0) -> FirstCut:
        """Not available: an LLM call per chunk is too expensive; LLMSegmenter is replay-only."""
        raise NotImplementedError(
            "LLMSegmenter is replay-only: it cannot decide boundaries while streaming (a model "
            "call per chunk is too expensive); segment complete texts with spans()/segment(), "
            "e.g. through SegmentedEnvironment.replay"
        )
