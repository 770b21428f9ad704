"""``PRMSpec``: which process reward model scores a run's steps, parsed once from its name.

The spellings (the CLI's ``--prm``, the workbench's choices, ``get_prm``'s names; a trace
records the spec itself, ``run.spec.prm``):

=============================  ==========================================================
name                           spec
=============================  ==========================================================
``none`` (or no PRM)           ``PRMKind.NONE``
``arithmetic``                 ``PRMKind.ARITHMETIC``
``mc``                         ``PRMKind.MC`` (Monte-Carlo step values, the run's model)
``judge``                      ``PRMKind.JUDGE``, ``judge=None``: the run's own model judges
``judge:<backend>``            ``PRMKind.JUDGE``, ``judge=ModelSpec.parse(<backend>)``
``transformers/<local path>``  ``PRMKind.TRANSFORMERS``, ``model=<local path>``
``vllm/<model>``               ``PRMKind.VLLM``, ``model=<model>`` (a served PRM)
=============================  ==========================================================

``llenvs.rewards.build_prm`` builds the PRM a spec names.

Example:
    >>> spec = PRMSpec.parse("vllm/tiny-prm", base_url="http://127.0.0.1:8000/v1")
    >>> spec.kind, spec.model, spec.name
    (<PRMKind.VLLM: 'vllm'>, 'tiny-prm', 'vllm/tiny-prm')
    >>> PRMSpec.from_record(spec.to_record()) == spec
    True
    >>> PRMSpec.parse("judge:transformers").judge.provider
    <Provider.EMBEDDED: 'embedded'>
    >>> PRMSpec.parse("nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llenvs.core.errors.UnknownName: unknown prm 'nope': choose one of: arithmetic, judge, ...

"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from llenvs.core._record_types import RECORD, Int64, Number, Positive, Text, variant
from llenvs.core._records import read_record, record_dict
from llenvs.core.errors import UnknownName
from llenvs.core.run_spec._model_spec import ModelSpec
from llenvs.core.run_spec._options_enum import OptionsEnum

__all__ = ["AGGREGATIONS", "PRM_NAMES", "PRMKind", "PRMSpec"]

PRM_NAMES: tuple[str, ...] = (
    "arithmetic",
    "mc",
    "judge",
    "judge:<backend>",
    "transformers/<local path>",
    "vllm/<model>",
)
"""The PRM names ``get_prm`` knows (``<local path>``: a checkpoint folder; ``<backend>``: a name
``get_backend`` knows, such as ``transformers``, the embedded model; ``<model>``: a model a
vLLM server serves)."""

NO_PRM = "none"
"""How the workbench spells "no PRM"."""

AGGREGATIONS = ("min", "last", "product", "mean")
"""How a PRM may combine step scores into one (``llenvs.rewards.Aggregation``'s values)."""

_FACTS = ("aggregation", "class_name")
"""What a spec may record about the PRM that was made, besides how to make it (any kind but
NONE): facts shown to people, never options of ``build_prm``."""


class PRMKind(OptionsEnum):
    """Which kind of PRM scores the steps; ``options``: what a spec of it takes but its model.

    Example:
        >>> PRMKind.VLLM.options
        ('convention', 'base_url')

    """

    NONE = "none"
    """No PRM."""
    ARITHMETIC = "arithmetic"
    """The deterministic arithmetic checker."""
    TRANSFORMERS = ("transformers", ("convention",))
    """A PRM checkpoint in a local folder, run with transformers."""
    VLLM = ("vllm", ("convention", "base_url"))
    """A PRM a vLLM server serves."""
    JUDGE = "judge"
    """A model asked to judge each step."""
    MC = ("mc", ("rollouts", "temperature", "max_tokens", "seed"))
    """Monte-Carlo step values: continuations of the run's model, judged by the verifier."""


_WITH_MODEL = (PRMKind.TRANSFORMERS, PRMKind.VLLM)
"""Kinds spelled ``<kind>/<model>``."""


@dataclass(frozen=True)
class PRMSpec:
    """A PRM: its kind and that kind's options (another kind's options are refused).

    Example:
        >>> PRMSpec(PRMKind.TRANSFORMERS, "/ckpt", convention="math-shepherd").name
        'transformers//ckpt'
        >>> PRMSpec(PRMKind.ARITHMETIC, base_url="http://h/v1")
        Traceback (most recent call last):
        ...
        ValueError: base_url is not an option of the arithmetic PRM: choose from none

    """

    __pydantic_config__ = RECORD
    __get_pydantic_core_schema__ = variant("kind", lambda kind: _fields(kind))

    kind: PRMKind
    """Which kind of PRM."""
    model: Text = ""
    """The checkpoint folder (TRANSFORMERS) or the served model (VLLM); "" for the others."""
    convention: Text | None = None
    """How the PRM's outputs read (``qwen2.5-math-prm``, ``math-shepherd``): TRANSFORMERS
    (needed to build it), VLLM (None: ``VllmPRM``'s default)."""
    base_url: Text | None = None
    """The vLLM server (VLLM); None: ``$LLENVS_PRM_BASE_URL``, else the local ``vllm serve``."""
    judge: ModelSpec | None = None
    """The model that judges (JUDGE); None: the run's own model."""
    rollouts: Positive | None = None
    """Continuations per step (MC); None: ``MonteCarloPRM``'s default."""
    temperature: Number | None = None
    """The continuations' temperature (MC); None: ``MonteCarloPRM``'s default."""
    max_tokens: Positive | None = None
    """Each continuation's token budget (MC); None: ``MonteCarloPRM``'s default."""
    seed: Int64 | None = None
    """The first continuation's seed (MC); None: ``MonteCarloPRM``'s default."""
    aggregation: Text | None = None
    """How the PRM combined step scores (one of ``AGGREGATIONS``), as recorded when it was
    made; None: it says none (any kind but NONE)."""
    class_name: Text | None = None
    """The PRM's class (``ArithmeticPRM``, ``VllmPRM``...), as recorded when it was made, for
    people; None: not recorded (any kind but NONE)."""

    def __post_init__(self) -> None:
        if not isinstance(self.kind, PRMKind):
            raise TypeError(f"kind must be a PRMKind, got {self.kind!r}")
        allowed = _fields(self.kind)[1:]
        for field in dataclasses.fields(self)[1:]:
            if field.name not in allowed and getattr(self, field.name) != field.default:
                raise ValueError(
                    f"{field.name} is not an option of the {self.kind.value} PRM: choose from "
                    f"{', '.join(self.kind.options) or 'none'}"
                )
        if self.kind in _WITH_MODEL and not self.model:
            raise ValueError(f"the {self.kind.value} PRM needs a model: {self.kind.value}/<model>")
        if self.judge is not None and not isinstance(self.judge, ModelSpec):
            raise TypeError(f"judge must be a ModelSpec, got {self.judge!r}")
        if self.base_url is not None and not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"the PRM server URL must be an http(s) URL, got {self.base_url!r}")
        if self.rollouts is not None and self.rollouts < 1:
            raise ValueError(f"rollouts must be >= 1, got {self.rollouts}")
        if self.aggregation is not None and self.aggregation not in AGGREGATIONS:
            raise ValueError(
                f"aggregation must be one of {', '.join(AGGREGATIONS)}, got {self.aggregation!r}"
            )

    @classmethod
    def parse(cls, text: str | None, **options: Any) -> PRMSpec:
        """The spec a PRM name means (module docstring), with its kind's ``options``.

        None and ``"none"`` mean no PRM.

        Example:
            >>> PRMSpec.parse(None) == PRMSpec.parse("none") == PRMSpec(PRMKind.NONE)
            True
            >>> PRMSpec.parse("arithmetic", base_url="http://h/v1")
            Traceback (most recent call last):
            ...
            ValueError: base_url is not an option of the arithmetic PRM: choose from none
            >>> PRMSpec.parse("judge:")  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            ValueError: 'judge:': give the judge's backend once, by name (judge:<backend>) or ...

        """
        if text is None or text == NO_PRM:
            kind, model, judge = PRMKind.NONE, "", None
        elif not isinstance(text, str):
            raise TypeError(f"a PRM name must be a str, got {type(text).__name__}")
        else:
            kind, model, judge = _kind_of(text)
        kind.refuse_unknown(options, f"the {kind.value} PRM")
        given = {key: value for key, value in options.items() if value is not None}
        return cls(kind, model, judge=judge, **given)

    @property
    def name(self) -> str:
        """The PRM's name, as ``get_prm`` and ``--prm`` spell it (``none`` for no PRM).

        Example:
            >>> PRMSpec.parse("judge:openai/m").name, PRMSpec(PRMKind.NONE).name
            ('judge:openai/m', 'none')

        """
        if self.kind in _WITH_MODEL:
            return f"{self.kind.value}/{self.model}"
        if self.kind is PRMKind.JUDGE and self.judge is not None:
            return f"judge:{self.judge.name}"
        return str(self.kind.value)

    @property
    def options(self) -> dict[str, Any]:
        """The options given with ``name`` to mean this spec (``parse(name, **options)``).

        Example:
            >>> PRMSpec.parse("vllm/m", base_url="http://h/v1").options
            {'base_url': 'http://h/v1'}

        """
        return {o: getattr(self, o) for o in self.kind.options if getattr(self, o) is not None}

    def to_record(self) -> dict[str, Any]:
        """The JSON object of this spec: its kind, model, judge and the options it sets.

        Example:
            >>> PRMSpec.parse("judge:transformers").to_record()
            {'kind': 'judge', 'judge': {'provider': 'embedded'}}

        """
        return record_dict(self)

    @classmethod
    def from_record(cls, obj: object, what: str = "prm") -> PRMSpec:
        """The spec of ``to_record``'s object; a bad field is named with its valid choices.

        Example:
            >>> PRMSpec.from_record({"kind": "vllm", "model": "m", "rollouts": 3})
            Traceback (most recent call last):
            ...
            llenvs.core.errors.RecordFormatError: prm: unknown field(s): rollouts: choose from kind, model, convention, base_url, aggregation, class_name

        """  # noqa: E501
        return read_record(cls, obj, what)


def _fields(kind: PRMKind) -> tuple[str, ...]:
    """The fields a spec of ``kind`` holds.

    The kind, its model (TRANSFORMERS, VLLM) or judge (JUDGE), its options, then the facts
    recorded of the PRM made (any kind but NONE).
    """
    if kind is PRMKind.NONE:
        return ("kind",)
    if kind is PRMKind.JUDGE:
        return ("kind", "judge", *_FACTS)
    model = ("model",) if kind in _WITH_MODEL else ()
    return ("kind", *model, *kind.options, *_FACTS)


def _kind_of(text: str) -> tuple[PRMKind, str, ModelSpec | None]:
    """The kind, model and judge a PRM name spells; an unknown name lists ``PRM_NAMES``."""
    if text in (PRMKind.ARITHMETIC.value, PRMKind.MC.value, PRMKind.JUDGE.value):
        return PRMKind(text), "", None
    head, colon, backend = text.partition(":")
    if head == PRMKind.JUDGE.value and colon:
        if not backend:
            raise ValueError(
                f"{text!r}: give the judge's backend once, by name (judge:<backend>) or as "
                "backend= to build_prm"
            )
        return PRMKind.JUDGE, "", ModelSpec.parse(backend)
    head, _, model = text.partition("/")
    for kind in _WITH_MODEL:
        if head == kind.value and model:
            return kind, model, None
    raise UnknownName("prm", text, PRM_NAMES)
