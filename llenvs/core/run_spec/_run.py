"""``RunSpec``: what a run is, as one value: tasks, segmenter, model, PRM, sampling, opening.

Each part is parsed once from the CLI's and the workbench's spellings and built by the layer
that owns what it builds (``llenvs.inference.build_backend``, ``llenvs.rewards.build_prm``).
``to_record`` is a JSON object meant to be stored verbatim in a trace's run record; a part a
run lacks (an imported trace has no model, and sampled nothing) is None, and absent from the
record.

Example:
    >>> from llenvs.core.run_spec import ModelSpec, PRMSpec, SegmenterSpec, TaskSource
    >>> spec = RunSpec(
    ...     task=TaskSource.parse("leg_counting", size=5),
    ...     segmenter=SegmenterSpec("steps"),
    ...     model=ModelSpec.parse("transformers"),
    ...     prm=PRMSpec.parse("arithmetic"),
    ...     sampling=SamplingParams(max_tokens=64),
    ... )
    >>> sorted(spec.to_record())
    ['model', 'prm', 'sampling', 'segmenter', 'task']
    >>> RunSpec.from_record(spec.to_record()) == spec
    True

"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from llenvs.core._backend import SamplingParams
from llenvs.core._record_types import RECORD, Coded, omit_when_empty
from llenvs.core._records import read_record, record_dict
from llenvs.core.run_spec._answer_opening import AnswerOpening
from llenvs.core.run_spec._model_spec import ModelSpec
from llenvs.core.run_spec._prm_spec import PRMSpec
from llenvs.core.run_spec._stated_sampling import StatedSampling
from llenvs.core.run_spec._task_source import TaskSource
from llenvs.core.segmenters import SegmenterSpec

__all__ = ["RunSpec"]

_PARTS = ("task", "segmenter", "model", "prm", "sampling", "answer_opening", "stated_sampling")
"""A run record's fields, in order."""

_SEGMENTER = Coded(SegmenterSpec.from_record, SegmenterSpec.to_record, "SegmenterSpec")
"""How a run record holds its segmenter (the segmenter's spec reads and writes its own JSON)."""


@dataclass(frozen=True)
class RunSpec:
    """A run: each part None where the run lacks it (``sampling``: nothing was sampled).

    Example:
        >>> RunSpec().sampling is None, RunSpec(sampling=SamplingParams()).sampling.max_tokens
        (True, 256)
        >>> RunSpec(model="transformers")
        Traceback (most recent call last):
        ...
        TypeError: RunSpec.model must be a ModelSpec or None, got 'transformers'

    """

    __pydantic_config__ = RECORD
    __get_pydantic_core_schema__ = omit_when_empty(*_PARTS)

    task: TaskSource | None = None
    """Where the tasks come from (None: not recorded, e.g. a trace imported without one)."""
    segmenter: (
        Annotated[
            SegmenterSpec,
            Coded(SegmenterSpec.from_record, SegmenterSpec.to_record, "SegmenterSpec"),
        ]
        | None
    ) = None
    """The segmenter that cuts responses (None: not recorded)."""
    model: ModelSpec | None = None
    """The model that generates (None: an imported trace, no model of ours)."""
    prm: PRMSpec | None = None
    """The PRM scoring each step (None: not recorded; ``PRMKind.NONE``: none scored)."""
    sampling: SamplingParams | None = None
    """How the model sampled (None: nothing was sampled, e.g. an imported text; a run made
    again from such a record samples with ``SamplingParams``' defaults)."""
    answer_opening: AnswerOpening | None = None
    """The opening forced when a response ends without an answer (None: never)."""
    stated_sampling: StatedSampling | None = None
    """How an imported trace's source says it sampled, where it says so (None: it does not;
    a run of ours records ``sampling`` instead)."""

    def __post_init__(self) -> None:
        for name, kind in zip(_PARTS, _KINDS, strict=True):
            value = getattr(self, name)
            if not isinstance(value, kind) and value is not None:
                raise TypeError(f"RunSpec.{name} must be a {kind.__name__} or None, got {value!r}")

    def to_record(self) -> dict[str, Any]:
        """The JSON object of this run: each part's record, parts the run lacks left out.

        Example:
            >>> RunSpec(sampling=SamplingParams(max_tokens=8)).to_record()["sampling"]["top_p"]
            1.0
            >>> RunSpec().to_record()
            {}

        """
        return record_dict(self)

    @classmethod
    def from_record(cls, obj: object, what: str = "run.spec") -> RunSpec:
        """The run of ``to_record``'s object; a bad part is named, with the valid fields.

        Example:
            >>> RunSpec.from_record({"modle": {}})
            Traceback (most recent call last):
            ...
            llenvs.core.errors.RecordFormatError: run.spec: unknown field(s): modle: choose from task, segmenter, model, prm, sampling, answer_opening, stated_sampling

        """  # noqa: E501
        return read_record(cls, obj, what)


_KINDS: tuple[Any, ...] = (
    TaskSource,
    SegmenterSpec,
    ModelSpec,
    PRMSpec,
    SamplingParams,
    AnswerOpening,
    StatedSampling,
)
"""Each part's type, in the order of ``_PARTS``."""
