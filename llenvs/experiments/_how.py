"""``How``: how an experiment's branches are made: samples per point, seeds, model, sampling.

Example:
    >>> from llenvs.core import read_record, record_dict
    >>> How(samples=2, seed=5).seeds(2)
    [5, 1000008]
    >>> record_dict(How(max_tokens=32, model="scripted"))
    {'samples': 1, 'seed': 0, 'model': 'scripted', 'max_tokens': 32}
    >>> read_record(How, {"samples": "2"}, "recipe.how")
    Traceback (most recent call last):
    ...
    llenvs.core.errors.RecordFormatError: recipe.how.samples: expected an integer, got '2'

"""

from __future__ import annotations

from dataclasses import dataclass, replace

from llenvs.core import (
    MAX_TOKENS,
    ON_POLICY_SAMPLES,
    RECORD,
    SAMPLES,
    Count,
    Int64,
    Number,
    Positive,
    SamplingParams,
    Substitute,
    Text,
    omit_when_empty,
)
from llenvs.evaluation.episodes import derived_seeds

__all__ = ["How", "SubstituteHow"]


@dataclass(frozen=True)
class SubstituteHow:
    """How an experiment's substitutes are searched for (``llenvs.core.Substitute``'s own).

    Example:
        >>> SubstituteHow(tries=8).substitute("So 9. ", seed=4)
        Substitute(text='So 9. ', tries=8, similarity=0.8, temperature=1.0, seed=4)

    """

    __pydantic_config__ = RECORD

    tries: Positive = 16
    """The most segments sampled at each point."""
    similarity: Number = 0.8
    """How close a try must come to stop sampling (a cosine, above 0 and at most 1)."""
    temperature: Number = 1.0
    """The temperature the tries are sampled at (above 0)."""
    measure: Text | None = None
    """How tries are measured: ``minilm`` or ``lexical``; None: MiniLM where installed."""

    def __post_init__(self) -> None:
        self.substitute("x", seed=0)  # its checks, made once when the recipe is read
        if self.measure not in (None, "minilm", "lexical"):
            raise ValueError(f"measure: choose minilm or lexical, got {self.measure!r}")

    def substitute(self, text: str, seed: int | None) -> Substitute:
        """The substitute of ``text`` at one point, its tries seeded from ``seed``."""
        return Substitute(text, self.tries, self.similarity, self.temperature, seed)


@dataclass(frozen=True)
class How:
    """How each point of an experiment is branched.

    Example:
        >>> How(samples=0)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.core.errors.OutOfBoundsError: samples must be 1..16 (...), got 0

    """

    __pydantic_config__ = RECORD
    __get_pydantic_core_schema__ = omit_when_empty(
        "model", "sampling", "max_tokens", "on_policy", "substitute"
    )

    samples: Positive = 1
    """Branches per point (a resample's ``n`` multiplies it), each with its own seed."""
    seed: Int64 = 0
    """The seed the samples' seeds derive from (``derived_seeds``)."""
    model: Text | None = None
    """A backend name; None: the parents' recorded model."""
    sampling: SamplingParams | None = None
    """How to sample after the intervention; None: as each parent records."""
    max_tokens: Positive | None = None
    """The token budget of each branch, over whatever sampling applies; None: unchanged."""
    on_policy: Count = 0
    """For a Force: score each point's text against this many continuations of the model's
    own first (``llenvs.evaluation.branching``); 0: not scored. For a substitute: its chosen
    text and its target."""
    substitute: SubstituteHow | None = None
    """Substitutes instead of forced text: each point's Force text becomes the target of a
    ``Substitute`` (the model's own closest segment is forced); None: the text is forced."""

    def __post_init__(self) -> None:
        SAMPLES.check(self.samples)
        ON_POLICY_SAMPLES.check(self.on_policy)
        if self.max_tokens is not None:
            MAX_TOKENS.check(self.max_tokens)
        if self.model == "":
            raise ValueError("model: name a backend, or leave it out for the parents' own")

    def seeds(self, count: int) -> list[int]:
        """The seeds of ``count`` samples of one point (the first is ``seed``)."""
        return [int(s) for s in derived_seeds(self.seed, count) if s is not None]

    def params(self, recorded: SamplingParams | None) -> SamplingParams:
        """The sampling of a branch whose parent (or resample) samples as ``recorded``.

        Example:
            >>> How(max_tokens=16).params(SamplingParams(temperature=0.5)).max_tokens
            16

        """
        params = self.sampling or recorded or SamplingParams()
        if self.max_tokens is not None:
            params = replace(params, max_tokens=self.max_tokens)
        return params
