"""On-policy substitutes: the model's own segment closest in meaning to a text the user wants.

A ``Substitute`` (``llenvs.core``) asks for a segment like its ``text`` without putting that
text in the model's mouth (Thought Branches, Macar, Bogdan et al., 2025). ``find_substitute``
samples the next segment from the branch point a few at a time (each try a generation cut at
the trace's own segmenter's first boundary, each with its own seed derived from the
substitute's),
measures each try against the target with a sentence similarity (MiniLM, or the lexical
fallback, named), and stops once a try reaches ``Substitute.similarity`` or the tries run out.
The closest try is the substitute, whether or not it came close: ``Substitution.reached`` and
``summary`` say which, plainly. With ``on_policy_samples``, the chosen text and the target (as
a Force would put it) are each placed among the model's own continuations (``on_policy``), so
the two can be read side by side.

Example:
    >>> from llenvs.core import Substitute
    >>> parent = leg_counting_trace("Count. So 8. <answer>8</answer>")
    >>> backend = get_backend("scripted", outputs=["Count. So 100 legs. More"])
    >>> found = find_substitute(parent, 1, Substitute("So 100. ", 4, 0.6, seed=1),
    ...                         backend, _Words(), batch=2)
    >>> found.text, round(found.similarity, 2), found.tries, found.reached
    ('So 100 legs. ', 0.82, 2, True)

"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Annotated, Any, Protocol

from llenvs.core import (
    RECORD,
    Coded,
    GenerationRequest,
    ModelBackend,
    Number,
    Positive,
    SamplingParams,
    Substitute,
    Text,
    read_record,
    record_dict,
)
from llenvs.core.errors import LlenvsError, RecordFormatError
from llenvs.evaluation.branching._on_policy import OnPolicy, on_policy, prefix_prompt
from llenvs.evaluation.branching._trace_environment import trace_segmenter
from llenvs.evaluation.episodes import derived_seeds
from llenvs.traces.records import Trace

__all__ = [
    "SEGMENT_TOKENS",
    "Similarity",
    "SubstituteError",
    "Substitution",
    "find_substitute",
    "recorded_substitute",
    "substitution_from_record",
]

SEGMENT_TOKENS = 256
"""The most tokens one try generates before its segment is cut (a segment that is not done by
then is taken as far as it went)."""

_ON_POLICY = Coded(OnPolicy.from_record, OnPolicy.to_record, "OnPolicy", where=False)


class SubstituteError(LlenvsError, ValueError):
    """A substitute that cannot be searched for here (nothing was sampled)."""


class Similarity(Protocol):
    """How alike a text is to others: ``llenvs.analysis.instruments``' ``TextSimilarity``."""

    name: str
    """What the similarities are recorded under (``all-MiniLM-L6-v2``, ``lexical``)."""

    def similarities(self, text: str, others: Sequence[str]) -> list[float]:
        """The similarity of ``text`` to each of ``others``, in order."""
        ...


@dataclass(frozen=True)
class Substitution:
    """What a substitute search found: a branch records it as ``metadata.substitute``.

    Example:
        >>> found = Substitution("So 100. ", "So 100 legs. ", 0.82, 2, 16, 0.8, "lexical",
        ...                      (0.1, 0.82))
        >>> found.reached, substitution_from_record(found.to_record()) == found
        (True, True)

    """

    __pydantic_config__ = RECORD

    target: Text
    """The text asked for."""
    text: Text
    """The try chosen: the closest to the target (forced as the branch's next segment)."""
    similarity: Number
    """The chosen try's similarity to the target."""
    tries: Positive
    """How many segments were sampled (fewer than asked when one came close early)."""
    asked: Positive
    """The most tries the substitute allowed."""
    threshold: Number
    """The similarity that counted as close enough."""
    measure: Text
    """The similarity used (``all-MiniLM-L6-v2``, or ``lexical``: blind to paraphrase)."""
    try_similarities: tuple[Number, ...] = ()
    """Each try's similarity to the target, in the order sampled."""
    on_policy: Annotated[OnPolicy, _ON_POLICY] | None = None
    """The chosen text's on-policy score (None: not scored)."""
    forced_on_policy: Annotated[OnPolicy, _ON_POLICY] | None = None
    """The target's, as a Force would put it (None: not scored)."""

    @property
    def reached(self) -> bool:
        """Whether the chosen try came as close as asked (``similarity >= threshold``)."""
        return self.similarity >= self.threshold

    def to_record(self) -> dict[str, Any]:
        """The JSON object a branch records (``substitution_from_record`` reads it)."""
        return record_dict(self)

    def summary(self) -> str:
        """One line for people, saying plainly when no try came close.

        Example:
            >>> print(Substitution("A.", "B.", 0.41, 16, 16, 0.8, "lexical").summary())
            no try came close: the closest of 16 tries has similarity 0.41 (asked 0.80, lexical); forced anyway: 'B.'

        """  # noqa: E501
        return f"{self.headline()}: {self.text!r}"

    def headline(self) -> str:
        """``summary`` without the chosen text.

        Example:
            >>> Substitution("A.", "B.", 0.9, 3, 16, 0.8, "lexical").headline()
            'substitute found in 3 of 16 tries: similarity 0.90 (asked 0.80, lexical)'

        """
        asked = f"(asked {self.threshold:.2f}, {self.measure})"
        if self.reached:
            return (
                f"substitute found in {self.tries} of {self.asked} tries: similarity "
                f"{self.similarity:.2f} {asked}"
            )
        return (
            f"no try came close: the closest of {self.tries} tries has similarity "
            f"{self.similarity:.2f} {asked}; forced anyway"
        )

    def on_policy_lines(self) -> list[str]:
        """The chosen text's and the target's on-policy scores, each one line (none if unscored).

        Example:
            >>> mine = OnPolicy(-1.0, -4.0, 4, 55.0, 8, (), None)
            >>> theirs = OnPolicy(-3.0, -9.0, 3, 5.0, 8, (), None)
            >>> found = Substitution("A.", "B.", 0.9, 1, 16, 0.8, "x", (), mine, theirs)
            >>> for line in found.on_policy_lines():
            ...     print(line)
            substitute's on-policy: -1.00 per token over 4 tokens, the 55th percentile of 8 continuations of the model's own
            forced target's on-policy: -3.00 per token over 3 tokens, the 5th percentile of 8 continuations of the model's own

        """  # noqa: E501
        lines = []
        if self.on_policy is not None:
            lines.append(f"substitute's {self.on_policy.summary()}")
        if self.forced_on_policy is not None:
            lines.append(f"forced target's {self.forced_on_policy.summary()}")
        return lines


def substitution_from_record(record: object) -> Substitution:
    """The search a branch recorded (``metadata.substitute``); a ``RecordFormatError`` if bad.

    Example:
        >>> substitution_from_record({"target": "A."})
        Traceback (most recent call last):
        ...
        llenvs.core.errors.RecordFormatError: substitute.text: missing

    """
    return read_record(Substitution, record, "substitute", RecordFormatError)


def find_substitute(
    trace: Trace,
    at: int,
    substitute: Substitute,
    backend: ModelBackend,
    similarity: Similarity,
    *,
    batch: int = 8,
    on_policy_samples: int = 0,
) -> Substitution:
    """Sample segment ``at`` of ``trace`` until a try comes as close to the target as asked.

    Arguments:
        trace: the parent; its first ``at`` segments are the prefix, its segmenter cuts tries.
        at: the branch point (how many segments are kept).
        substitute: the target text, the most tries, the similarity asked, the temperature
            and the first try's seed (the others are derived from it: ``derived_seeds``).
        backend: the model whose own segments are sampled.
        similarity: how tries are measured against the target (MiniLM, or the lexical one).
        batch: tries generated together; the search stops between batches.
        on_policy_samples: score the chosen text and the target against this many of the
            model's own continuations (``on_policy``); 0, or a backend that cannot score: not.

    Raises ``SubstituteError`` when the model writes nothing at that point.

    """
    prompt = prefix_prompt(trace, at)  # refuses a place out of range, or after feedback
    cut = trace_segmenter(trace, backend).find_boundary
    seed = substitute.seed
    seeds = derived_seeds(seed, substitute.tries)
    texts: list[str] = []
    scores: list[float] = []
    for first in range(0, len(seeds), max(1, batch)):
        requests = [
            GenerationRequest(
                prompt,
                SamplingParams(
                    max_tokens=SEGMENT_TOKENS, temperature=substitute.temperature, seed=each
                ),
                SEGMENT_TOKENS,
                stop_at=cut,
            )
            for each in seeds[first : first + max(1, batch)]
        ]
        made = [_first_segment(g.text, cut) for g in backend.generate(requests)]
        texts += made
        scores += [_measured(s) for s in similarity.similarities(substitute.text, made)]
        if max(scores) >= substitute.similarity:
            break
    best = max(range(len(texts)), key=lambda i: (scores[i], bool(texts[i].strip())))
    if not texts[best].strip():
        raise SubstituteError(
            f"{backend.name} wrote nothing after segment {at} in {len(texts)} tries: there is "
            "no segment of its own to substitute"
        )
    others = 0 if seed is None else seed + 1  # continuations other than the tries themselves
    chosen = _scored(trace, at, texts[best], backend, on_policy_samples, others)
    forced = _scored(trace, at, substitute.text, backend, on_policy_samples, others)
    return Substitution(
        substitute.text,
        texts[best],
        scores[best],
        len(texts),
        substitute.tries,
        substitute.similarity,
        similarity.name,
        tuple(scores),
        chosen,
        forced,
    )


def recorded_substitute(branch: Trace, asked: Substitute, found: Substitution) -> Trace:
    """A branch made by forcing ``found``'s text, recorded as the substitute it was.

    Its intervention is ``asked`` (the substitute, not the Force of its text), and
    ``metadata["substitute"]`` holds what the search found.
    """
    if branch.parent is None:
        raise ValueError(f"trace {branch.trace_id} is not a branch (it names no parent)")
    return replace(
        branch,
        parent=replace(branch.parent, intervention=asked),
        metadata={**branch.metadata, "substitute": found.to_record()},
    )


def _first_segment(text: str, cut: Any) -> str:
    """The try's first segment: up to its first boundary, or all of it when it has none."""
    end = cut(text)
    return text if end is None else text[:end]


def _measured(score: float) -> float:
    """A similarity as recorded: a number (a NaN, from an empty text, is no similarity: 0)."""
    return 0.0 if math.isnan(score) else float(score)


def _scored(
    trace: Trace, at: int, text: str, backend: ModelBackend, samples: int, seed: int
) -> OnPolicy | None:
    if samples <= 0 or backend.capabilities.score is None:
        return None
    return on_policy(trace, at, text, backend, samples=samples, seed=seed)


class _Words:
    """A similarity for the examples: the share of the target's words a text holds."""

    name = "words"

    def similarities(self, text: str, others: Sequence[str]) -> list[float]:
        wanted = set(re.findall(r"\w+", text.lower()))
        found = [set(re.findall(r"\w+", other.lower())) for other in others]
        return [len(wanted & words) / math.sqrt(len(wanted) * len(words) or 1) for words in found]
