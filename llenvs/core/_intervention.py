"""What an intervention does at its branch point: ``Force | Feedback | Complete | Resample``.

An intervention is one value, checked when it is made: a ``Force`` or a ``Feedback`` without
text, or a ``Resample`` of 0 or 17 samples, cannot exist, so nothing downstream checks a kind
against an optional text. ``BranchRequest`` (``llenvs.evaluation``) puts one at a point of a
trace; the branch's trace records it (``BranchRecord``) as ``to_record`` writes it, and
``intervention_from_record`` reads it back, old records (``kind`` + ``text``) included.

The guide's step callbacks steer a run with ``StepDecision`` values (``llenvs.evaluation``):
a ``Force`` becomes a ``ForceAction``, a ``Feedback`` its text, ``Complete()`` is the guide's
own ``COMPLETE`` (one value in both), and a ``Resample`` continues (``None``).

Example:
    >>> Force("So 4 legs. ").to_record()
    {'kind': 'force', 'text': 'So 4 legs. '}
    >>> intervention_from_record({"kind": "complete", "text": None}) is COMPLETE
    True
    >>> Feedback(" ")
    Traceback (most recent call last):
    ...
    ValueError: the feedback needs a text that is not blank, got ' '

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from llenvs.core._backend import SamplingParams
from llenvs.core._bounds import SAMPLES
from llenvs.core._intervention_kind import InterventionKind

__all__ = [
    "COMPLETE",
    "Complete",
    "Feedback",
    "Force",
    "Intervention",
    "Resample",
    "intervention_from_record",
]


@dataclass(frozen=True)
class Force:
    """Make ``text`` the next segment instead of generating it, then generate the rest.

    The text is one segment however many sentences it holds.

    Example:
        >>> Force("Deer have 4 legs. ").text
        'Deer have 4 legs. '
        >>> Force("")
        Traceback (most recent call last):
        ...
        ValueError: the forced segment needs a text (an empty one would end the episode)

    """

    kind: ClassVar[InterventionKind] = InterventionKind.FORCE

    text: str
    """The segment to take."""

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"a Force's text must be a string, got {self.text!r}")
        if not self.text:
            raise ValueError("the forced segment needs a text (an empty one would end the episode)")

    def to_record(self) -> dict[str, Any]:
        """The JSON object a branch records (``intervention_from_record`` reads it back)."""
        return {"kind": self.kind.value, "text": self.text}


@dataclass(frozen=True)
class Feedback:
    """Close the assistant turn, add ``text`` as a user turn, and generate the answer to it.

    Example:
        >>> Feedback("Check the count.").to_record()
        {'kind': 'feedback', 'text': 'Check the count.'}

    """

    kind: ClassVar[InterventionKind] = InterventionKind.FEEDBACK

    text: str
    """The user turn injected."""

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"a Feedback's text must be a string, got {self.text!r}")
        if not self.text.strip():
            raise ValueError(f"the feedback needs a text that is not blank, got {self.text!r}")

    def to_record(self) -> dict[str, Any]:
        """The JSON object a branch records."""
        return {"kind": self.kind.value, "text": self.text}


@dataclass(frozen=True, repr=False)
class Complete:
    """Generate the rest of the response in one call (a singleton: ``COMPLETE``).

    The same value is the guide's ``COMPLETE`` step decision (``llenvs.evaluation``).

    Example:
        >>> Complete() is COMPLETE, Complete() == COMPLETE
        (True, True)

    """

    kind: ClassVar[InterventionKind] = InterventionKind.COMPLETE
    _instance: ClassVar[Complete | None] = None

    def __new__(cls) -> Complete:
        """Return the one instance."""
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "COMPLETE"

    def __reduce__(self) -> str:
        return "COMPLETE"

    def to_record(self) -> dict[str, Any]:
        """The JSON object a branch records (its ``text`` is null, as it always was)."""
        return {"kind": self.kind.value, "text": None}


COMPLETE: Final = Complete()
"""The one ``Complete``: finish in one call (the guide returns it from a step callback)."""


@dataclass(frozen=True)
class Resample:
    """Generate again from the branch point: ``n`` samples, sampled as ``params`` say.

    ``params`` None samples as the parent records (its own sampling). Each of the ``n`` samples
    gets its own seed, derived from ``params.seed``.

    Example:
        >>> Resample().to_record()
        {'kind': 'resample', 'text': None}
        >>> Resample(4, SamplingParams(temperature=0.7, seed=1)).to_record()["samples"]
        4
        >>> Resample(17)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.core.errors.OutOfBoundsError: samples must be 1..16 (...), got 17

    """

    kind: ClassVar[InterventionKind] = InterventionKind.RESAMPLE

    n: int = 1
    """How many samples, generated together (1..16: ``llenvs.core.SAMPLES``)."""
    params: SamplingParams | None = None
    """How to sample; None: as the parent records."""

    def __post_init__(self) -> None:
        SAMPLES.check(self.n)
        if self.params is not None and not isinstance(self.params, SamplingParams):
            raise TypeError(f"a Resample's params must be SamplingParams, got {self.params!r}")

    def to_record(self) -> dict[str, Any]:
        """The JSON object a branch records: ``samples`` and ``sampling_params`` when given.

        A single resample as the parent samples writes what resamples always wrote.
        """
        record: dict[str, Any] = {"kind": self.kind.value, "text": None}
        if self.n != 1:
            record["samples"] = self.n
        if self.params is not None:
            record["sampling_params"] = self.params.to_record()
        return record


Intervention = Force | Feedback | Complete | Resample
"""What a branch does at its branch point."""


def intervention_from_record(record: object) -> Intervention:
    """The intervention a branch recorded; a ``ValueError`` naming the field otherwise.

    Reads every record llenvs wrote: ``{"kind", "text"}`` (``text`` null for complete and
    resample), and a resample's ``samples`` and ``sampling_params``.

    Example:
        >>> intervention_from_record({"kind": "feedback", "text": "Recount."})
        Feedback(text='Recount.')
        >>> intervention_from_record({"kind": "resample", "text": None, "samples": 2})
        Resample(n=2, params=None)
        >>> intervention_from_record({"kind": "rewind", "text": None})
        Traceback (most recent call last):
        ...
        ValueError: kind: unknown kind 'rewind': choose from force, feedback, complete, resample
        >>> intervention_from_record({"kind": "complete", "text": "x"})
        Traceback (most recent call last):
        ...
        ValueError: text: a complete intervention takes no text, got 'x'

    """
    if not isinstance(record, Mapping):
        raise ValueError(f"expected an object, got {record!r}")
    fields = dict(record)
    name = fields.pop("kind", None)
    kinds = {kind.value: kind for kind in InterventionKind}
    if name not in kinds:
        choices = ", ".join(kinds)
        raise ValueError(f"kind: unknown kind {name!r}: choose from {choices}")
    kind = kinds[str(name)]
    text = fields.pop("text", None)
    if text is not None and not isinstance(text, str):
        raise ValueError(f"text: expected a string or null, got {text!r}")
    value: Intervention
    if kind is InterventionKind.FORCE or kind is InterventionKind.FEEDBACK:
        if text is None:
            raise ValueError(f"text: a {kind.value} intervention needs a text, got null")
        value = Force(text) if kind is InterventionKind.FORCE else Feedback(text)
    elif text is not None:
        raise ValueError(f"text: a {kind.value} intervention takes no text, got {text!r}")
    elif kind is InterventionKind.COMPLETE:
        value = COMPLETE
    else:
        samples = fields.pop("samples", 1)
        if isinstance(samples, bool) or not isinstance(samples, int):
            raise ValueError(f"samples: expected an integer, got {samples!r}")
        params = fields.pop("sampling_params", None)
        value = Resample(samples, None if params is None else SamplingParams.from_record(params))
    if fields:
        raise ValueError(f"unknown field(s) for a {kind.value}: {', '.join(sorted(fields))}")
    return value
