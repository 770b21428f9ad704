"""What an intervention does at its branch point: a Force, Feedback, Complete, Resample, Substitute.

An intervention is one value, checked when it is made: a ``Force`` or a ``Feedback`` without
text, or a ``Resample`` of 0 or 17 samples, cannot exist, so nothing downstream checks a kind
against an optional text. ``BranchRequest`` (``llenvs.evaluation``) puts one at a point of a
trace; the branch's trace records it (``BranchRecord``) as ``to_record`` writes it, and
``intervention_from_record`` reads it back, old records (``kind`` + ``text``) included.

Each kind is a record (``llenvs.core.read_record``) of its own fields; what every kind's JSON
holds first, its ``kind`` and its ``text`` (null for a kind that has none), is read here, and
the kind chooses the record that reads the rest.

The guide's step callbacks steer a run with ``StepDecision`` values (``llenvs.evaluation``):
a ``Force`` becomes a ``ForceAction``, a ``Feedback`` its text, ``Complete()`` is the guide's
own ``COMPLETE`` (one value in both), and a ``Resample`` continues (``None``). A ``Substitute``
is no step decision: its text is found first (``llenvs.evaluation.branching.find_substitute``),
and the text found is forced.

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

import dataclasses
import functools
import math
import operator
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Final

from llenvs.core._backend import SamplingParams
from llenvs.core._bounds import SAMPLES, SEED, SUBSTITUTE_TRIES
from llenvs.core._intervention_kind import InterventionKind
from llenvs.core._record_types import (
    HERE,
    RECORD,
    Coded,
    Count,
    Number,
    Positive,
    Text,
    _dataclass_schema,
)
from llenvs.core._records import read_record, record_dict, record_schema
from llenvs.core.errors import RecordFormatError

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema

__all__ = [
    "COMPLETE",
    "INTERVENTION",
    "Complete",
    "Feedback",
    "Force",
    "Intervention",
    "Resample",
    "Substitute",
    "intervention_from_record",
]


class _Recorded:
    """What writes every intervention's JSON: its kind, its text (null if none), its fields."""

    kind: ClassVar[InterventionKind]

    def to_record(self) -> dict[str, Any]:
        """The JSON object a branch records (``intervention_from_record`` reads it back)."""
        return {"kind": self.kind.value, "text": None, **record_dict(self)}


@dataclass(frozen=True)
class Force(_Recorded):
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

    __pydantic_config__ = RECORD
    kind: ClassVar[InterventionKind] = InterventionKind.FORCE

    text: Text
    """The segment to take."""

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"a Force's text must be a string, got {self.text!r}")
        if not self.text:
            raise ValueError("the forced segment needs a text (an empty one would end the episode)")


@dataclass(frozen=True)
class Feedback(_Recorded):
    """Close the assistant turn, add ``text`` as a user turn, and generate the answer to it.

    Example:
        >>> Feedback("Check the count.").to_record()
        {'kind': 'feedback', 'text': 'Check the count.'}

    """

    __pydantic_config__ = RECORD
    kind: ClassVar[InterventionKind] = InterventionKind.FEEDBACK

    text: Text
    """The user turn injected."""

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"a Feedback's text must be a string, got {self.text!r}")
        if not self.text.strip():
            raise ValueError(f"the feedback needs a text that is not blank, got {self.text!r}")


@dataclass(frozen=True, repr=False)
class Complete(_Recorded):
    """Generate the rest of the response in one call (a singleton: ``COMPLETE``).

    The same value is the guide's ``COMPLETE`` step decision (``llenvs.evaluation``); reading
    its record gives it too (the converter makes a record with ``__new__``).

    Example:
        >>> Complete() is COMPLETE, Complete() == COMPLETE, COMPLETE.to_record()
        (True, True, {'kind': 'complete', 'text': None})

    """

    __pydantic_config__ = RECORD
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


COMPLETE: Final = Complete()
"""The one ``Complete``: finish in one call (the guide returns it from a step callback)."""


def _written_as(**names: str) -> Any:
    """A record's ``__get_pydantic_core_schema__``: its fields under their JSON ``names``.

    Each is written only when it is not its default, so a record that gains a field in a later
    version still writes what it always wrote.
    """

    def schema(cls: type, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        built = handler(source)
        record = _dataclass_schema(built)
        record.setdefault("config", {})["serialize_by_alias"] = True
        defaults = {item.name: item.default for item in dataclasses.fields(cls)}
        for item in record["schema"]["fields"]:
            name = item["name"]
            item["validation_alias"] = item["serialization_alias"] = names[name]
            item["serialization_exclude_if"] = functools.partial(operator.eq, defaults[name])
        return built

    return classmethod(schema)


_SAMPLING = Coded(SamplingParams.from_record, SamplingParams.to_record, "SamplingParams")
"""How a resample holds its sampling (read as a record of its own, so that a bad field of it is
named with the valid ones: the converter lists a record's fields only under their own names)."""


@dataclass(frozen=True)
class Resample(_Recorded):
    """Generate again from the branch point: ``n`` samples, sampled as ``params`` say.

    ``params`` None samples as the parent records (its own sampling). Each of the ``n`` samples
    gets its own seed, derived from ``params.seed``. A single resample as the parent samples
    writes what resamples always wrote (``samples`` and ``sampling_params`` only when given).

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

    __pydantic_config__ = RECORD
    __get_pydantic_core_schema__ = _written_as(n="samples", params="sampling_params")
    kind: ClassVar[InterventionKind] = InterventionKind.RESAMPLE

    n: Positive = 1
    """How many samples, generated together (1..16: ``llenvs.core.SAMPLES``)."""
    params: Annotated[SamplingParams, _SAMPLING] | None = None
    """How to sample; None: as the parent records."""

    def __post_init__(self) -> None:
        SAMPLES.check(self.n)
        if self.params is not None and not isinstance(self.params, SamplingParams):
            raise TypeError(f"a Resample's params must be SamplingParams, got {self.params!r}")


@dataclass(frozen=True)
class Substitute(_Recorded):
    """Resample the next segment until the model itself writes something close to ``text``.

    An on-policy substitute (Thought Branches, Macar, Bogdan et al., 2025): instead of putting
    ``text`` in the model's mouth, up to ``tries`` segments of the model's own are sampled from
    the branch point at ``temperature``, and the one closest in meaning to ``text`` is kept
    (sampling stops early once one reaches ``similarity``); the rest is generated from it as a
    ``Force`` generates after its text. The branch records what was found
    (``metadata.substitute``: ``llenvs.evaluation.branching.Substitution``), and says so when
    no try came close.

    Example:
        >>> Substitute("So 4 legs. ", tries=8).to_record()
        {'kind': 'substitute', 'text': 'So 4 legs. ', 'tries': 8, 'similarity': 0.8, 'temperature': 1.0, 'seed': None}
        >>> Substitute("x", similarity=1.5)
        Traceback (most recent call last):
        ...
        ValueError: a substitute's similarity must be above 0 and at most 1, got 1.5

    """  # noqa: E501

    __pydantic_config__ = RECORD
    kind: ClassVar[InterventionKind] = InterventionKind.SUBSTITUTE

    text: Text
    """The segment to come close to (the target)."""
    tries: Positive = 16
    """The most segments sampled (``llenvs.core.SUBSTITUTE_TRIES``)."""
    similarity: Number = 0.8
    """How close is close enough to stop sampling (a cosine, above 0 and at most 1)."""
    temperature: Number = 1.0
    """The temperature the tries are sampled at (above 0: greedy tries would all be one)."""
    seed: Count | None = None
    """The first try's seed, the others derived from it (None: unseeded)."""

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"a Substitute's text must be a string, got {self.text!r}")
        if not self.text.strip():
            raise ValueError(
                f"the substitute needs a target text that is not blank, got {self.text!r}"
            )
        SUBSTITUTE_TRIES.check(self.tries)
        if self.seed is not None:
            SEED.check(self.seed)
        if not 0 < self.similarity <= 1:
            raise ValueError(
                f"a substitute's similarity must be above 0 and at most 1, got {self.similarity}"
            )
        if not (self.temperature > 0 and math.isfinite(self.temperature)):
            raise ValueError(
                "a substitute samples its tries, so its temperature must be above 0, got "
                f"{self.temperature}"
            )


Intervention = Force | Feedback | Complete | Resample | Substitute
"""What a branch does at its branch point."""

_KINDS: dict[InterventionKind, type[Intervention]] = {
    each.kind: each for each in (Force, Feedback, Complete, Resample, Substitute)
}
"""The record of each kind, in the order of ``InterventionKind``."""


def intervention_from_record(record: object) -> Intervention:
    """The intervention a branch recorded; a ``RecordFormatError`` naming the field otherwise.

    Reads every record llenvs wrote: ``{"kind", "text"}`` (``text`` null, or absent, for
    complete and resample), and a resample's ``samples`` and ``sampling_params``. Messages name
    the field from the intervention (``text: ...``): where it stands names the rest.

    Example:
        >>> intervention_from_record({"kind": "feedback", "text": "Recount."})
        Feedback(text='Recount.')
        >>> intervention_from_record({"kind": "resample", "text": None, "samples": 2})
        Resample(n=2, params=None)
        >>> intervention_from_record({"kind": "rewind", "text": None})
        Traceback (most recent call last):
        ...
        llenvs.core.errors.RecordFormatError: kind: unknown kind 'rewind': choose from force, feedback, complete, resample, substitute
        >>> intervention_from_record({"kind": "complete", "text": "x"})
        Traceback (most recent call last):
        ...
        llenvs.core.errors.RecordFormatError: text: a complete intervention takes no text, got 'x'
        >>> intervention_from_record({"kind": "resample", "sample": 2})
        Traceback (most recent call last):
        ...
        llenvs.core.errors.RecordFormatError: unknown field(s) for a resample: sample: choose from kind, text, samples, sampling_params

    """  # noqa: E501
    if not isinstance(record, Mapping):
        raise RecordFormatError(f"expected an object, got {record!r}")
    fields = dict(record)
    name = fields.pop("kind", None)
    kind = next((kind for kind in _KINDS if kind.value == name), None)
    if kind is None:
        choices = ", ".join(kind.value for kind in _KINDS)
        raise RecordFormatError(f"kind: unknown kind {name!r}: choose from {choices}")
    known = _fields(kind)
    unknown = sorted(str(key) for key in fields if key not in known)
    if unknown:
        raise RecordFormatError(
            f"unknown field(s) for a {name}: {', '.join(unknown)}: choose from {', '.join(known)}"
        )
    text = fields.pop("text", None)
    if "text" in _KINDS[kind].__dataclass_fields__:
        if text is None:
            raise RecordFormatError(f"text: a {name} intervention needs a text, got null")
        fields["text"] = text
    elif text is not None:
        raise RecordFormatError(f"text: a {name} intervention takes no text, got {text!r}")
    try:
        return read_record(_KINDS[kind], fields, HERE)
    except RecordFormatError as error:  # named from the intervention, as the messages above
        words = str(error).removeprefix(f"{HERE}.").removeprefix(f"{HERE}: ")
        raise RecordFormatError(words) from None


def _written(intervention: Intervention) -> dict[str, Any]:
    return intervention.to_record()


INTERVENTION = Coded(intervention_from_record, _written, "Intervention", where=False)
"""How a record holds an intervention (a branch's, a recipe's): ``Annotated[Intervention,
INTERVENTION]``, read by ``intervention_from_record`` and written by ``to_record``."""


@functools.cache
def _fields(kind: InterventionKind) -> tuple[str, ...]:
    """The fields a ``kind`` intervention's JSON may hold: ``kind``, ``text``, then its own."""
    own = [name for name in record_schema(_KINDS[kind])["properties"] if name != "text"]
    return ("kind", "text", *own)
