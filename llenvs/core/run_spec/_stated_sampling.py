"""``StatedSampling``: how a trace's own source says it was sampled, for a trace we did not make.

An imported trace sampled nothing here (its ``RunSpec.sampling`` is None), but its source may
say how its model sampled: Thought Anchors states temperature 0.6 and top-p 0.95, and nothing
of a token budget or a seed. Each setting the source states is kept with ``source``, where it
says so; each one it does not state is None (``null`` in the record), shown as "not recorded",
never filled with one of our defaults.

Example:
    >>> stated = StatedSampling("Thought Anchors", temperature=0.6, top_p=0.95)
    >>> stated.summary()
    'temperature 0.6, top-p 0.95; top-k, max tokens and seed not recorded (stated by Thought Anchors)'
    >>> StatedSampling.from_record(stated.to_record()) == stated
    True
    >>> stated.sampling_params().max_tokens  # a branch's own budget: ours, not the source's
    256

"""  # noqa: E501

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llenvs.core._backend import SamplingParams
from llenvs.core._record_types import RECORD, Int64, Number, Positive, Text
from llenvs.core._records import read_record, record_dict

__all__ = ["StatedSampling"]

_SETTINGS = ("temperature", "top_p", "top_k", "max_tokens", "seed")
"""The settings a source may state, in the order they are shown."""

_SHOWN = {"top_p": "top-p", "top_k": "top-k", "max_tokens": "max tokens"}
"""A setting's name in words, where it differs from the field."""


@dataclass(frozen=True)
class StatedSampling:
    """The sampling a trace's source states (see the module); None: the source does not say.

    Example:
        >>> StatedSampling("")
        Traceback (most recent call last):
        ...
        ValueError: StatedSampling.source must say where the settings are stated
        >>> StatedSampling("x", top_p=2.0)
        Traceback (most recent call last):
        ...
        ValueError: top_p must be in (0, 1], got 2.0

    """

    __pydantic_config__ = RECORD

    source: Text
    """Where the settings are stated (a paper, a dataset's card, a log's header)."""
    temperature: Number | None = None
    """The stated temperature (0 for greedy)."""
    top_p: Number | None = None
    """The stated nucleus sampling mass."""
    top_k: Positive | None = None
    """The stated top-k."""
    max_tokens: Positive | None = None
    """The stated token budget of a response."""
    seed: Int64 | None = None
    """The stated seed."""

    def __post_init__(self) -> None:
        if not self.source.strip():
            raise ValueError("StatedSampling.source must say where the settings are stated")
        stated = {name: getattr(self, name) for name in _SETTINGS[:-1]}
        SamplingParams(**{k: v for k, v in stated.items() if v is not None})  # checks each

    def to_record(self) -> dict[str, Any]:
        """The JSON object: the source and every setting, ``null`` where none is stated.

        Example:
            >>> StatedSampling("paper", temperature=0.6).to_record()["max_tokens"] is None
            True

        """
        return record_dict(self)

    @classmethod
    def from_record(cls, obj: object, what: str = "stated_sampling") -> StatedSampling:
        """The settings of ``to_record``'s object, read by ``read_record``; a bad field is named.

        Example:
            >>> StatedSampling.from_record({"source": "paper", "top_k": 0})
            Traceback (most recent call last):
            ...
            llenvs.core.errors.RecordFormatError: stated_sampling.top_k: expected an integer >= 1, got 0

        """  # noqa: E501
        return read_record(cls, obj, what)

    def summary(self) -> str:
        """The stated settings in words, then those not recorded, then the source."""
        stated = [
            f"{_SHOWN.get(name, name)} {value:g}"
            for name in _SETTINGS
            if (value := getattr(self, name)) is not None
        ]
        missing = [_SHOWN.get(name, name) for name in _SETTINGS if getattr(self, name) is None]
        parts = [", ".join(stated)] if stated else []
        if missing:
            listed = ", ".join(missing[:-1]) + (" and " if len(missing) > 1 else "") + missing[-1]
            parts.append(f"{listed} not recorded")
        return f"{'; '.join(parts)} (stated by {self.source})"

    def sampling_params(self) -> SamplingParams:
        """What a new run from this trace samples with: the stated settings, ours for the rest."""
        stated = {name: getattr(self, name) for name in _SETTINGS}
        return SamplingParams(**{k: v for k, v in stated.items() if v is not None})
