"""The run spec: what a run is, as typed values parsed once from the CLI's and UI's names.

``RunSpec`` gathers a ``TaskSource``, a ``SegmenterSpec``, a ``ModelSpec``, a ``PRMSpec``,
``SamplingParams`` and an ``AnswerOpening``; each has ``to_record``/``from_record`` (a JSON
object), and the named ones a ``parse`` for the spellings the CLI and the workbench accept.
The core builds only what is core (environments, segmenters); ``llenvs.inference.build_backend``
and ``llenvs.rewards.build_prm`` build models and PRMs.

Example:
    >>> from llenvs.core.run_spec import ModelSpec, PRMSpec
    >>> ModelSpec.parse("transformers/models/x").model, PRMSpec.parse("mc").kind.value
    ('models/x', 'mc')

"""

from llenvs.core._backend import SamplingParams
from llenvs.core.run_spec._answer_opening import DEFAULT_TEXT, AnswerOpening
from llenvs.core.run_spec._model_spec import (
    EMBEDDED_MODEL_NAME,
    ModelSpec,
    Provider,
    ServerMode,
)
from llenvs.core.run_spec._prm_spec import AGGREGATIONS, PRM_NAMES, PRMKind, PRMSpec
from llenvs.core.run_spec._run import RunSpec
from llenvs.core.run_spec._stated_sampling import StatedSampling
from llenvs.core.run_spec._task_source import (
    TaskSource,
    parse_tasks,
    spell_tasks,
    task_count,
    task_indices,
)
from llenvs.core.segmenters import SegmenterSpec

__all__ = [
    "AGGREGATIONS",
    "DEFAULT_TEXT",
    "EMBEDDED_MODEL_NAME",
    "PRM_NAMES",
    "AnswerOpening",
    "ModelSpec",
    "PRMKind",
    "PRMSpec",
    "Provider",
    "RunSpec",
    "SamplingParams",
    "SegmenterSpec",
    "ServerMode",
    "StatedSampling",
    "TaskSource",
    "parse_tasks",
    "spell_tasks",
    "task_count",
    "task_indices",
]
