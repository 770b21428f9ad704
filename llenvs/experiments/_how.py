"""``How``: how an experiment's branches are made: samples per point, seeds, model, sampling.

Example:
    >>> How(samples=2, seed=5).seeds(2)
    [5, 1000008]
    >>> How.from_record(How(max_tokens=32, model="scripted").to_record())
    How(samples=1, seed=0, model='scripted', sampling=None, max_tokens=32, on_policy=0)

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from llenvs.core import MAX_TOKENS, ON_POLICY_SAMPLES, SAMPLES, SamplingParams
from llenvs.evaluation.episodes import derived_seeds

__all__ = ["How"]


@dataclass(frozen=True)
class How:
    """How each point of an experiment is branched.

    Example:
        >>> How(samples=0)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.core.errors.OutOfBoundsError: samples must be 1..16 (...), got 0

    """

    samples: int = 1
    """Branches per point (a resample's ``n`` multiplies it), each with its own seed."""
    seed: int = 0
    """The seed the samples' seeds derive from (``derived_seeds``)."""
    model: str | None = None
    """A backend name; None: the parents' recorded model."""
    sampling: SamplingParams | None = None
    """How to sample after the intervention; None: as each parent records."""
    max_tokens: int | None = None
    """The token budget of each branch, over whatever sampling applies; None: unchanged."""
    on_policy: int = 0
    """For a Force: score each point's text against this many continuations of the model's
    own first (``llenvs.evaluation.branching``); 0: not scored."""

    def __post_init__(self) -> None:
        SAMPLES.check(self.samples)
        ON_POLICY_SAMPLES.check(self.on_policy)
        if self.max_tokens is not None:
            MAX_TOKENS.check(self.max_tokens)

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

    def to_record(self) -> dict[str, Any]:
        """The JSON object a recipe records (absent fields at their defaults)."""
        record: dict[str, Any] = {"samples": self.samples, "seed": self.seed}
        if self.model is not None:
            record["model"] = self.model
        if self.sampling is not None:
            record["sampling"] = self.sampling.to_record()
        if self.max_tokens is not None:
            record["max_tokens"] = self.max_tokens
        if self.on_policy:
            record["on_policy"] = self.on_policy
        return record

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> How:
        """The value ``to_record`` wrote; a ``ValueError`` naming a bad field."""
        fields = dict(record)
        unknown = set(fields) - {"samples", "seed", "model", "sampling", "max_tokens", "on_policy"}
        if unknown:
            raise ValueError(f"how: unknown field(s) {', '.join(sorted(unknown))}")
        sampling = fields.get("sampling")
        return cls(
            samples=int(fields.get("samples", 1)),
            seed=int(fields.get("seed", 0)),
            model=fields.get("model"),
            sampling=None if sampling is None else SamplingParams.from_record(sampling),
            max_tokens=fields.get("max_tokens"),
            on_policy=int(fields.get("on_policy", 0)),
        )
