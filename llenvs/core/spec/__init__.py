"""The run spec: what a run is, as typed values parsed once from the CLI's and UI's names.

``RunSpec`` gathers a ``TaskSource``, a ``SegmenterSpec``, a ``ModelSpec``, a ``PRMSpec``,
``SamplingParams`` and an ``AnswerOpening``; each has ``to_record``/``from_record`` (a JSON
object), and the named ones a ``parse`` for the spellings the CLI and the workbench accept.
The core builds only what is core (environments, segmenters); ``llenvs.inference.build_backend``
and ``llenvs.rewards.build_prm`` build models and PRMs.

Example:
    >>> from llenvs.core.spec import ModelSpec, PRMSpec
    >>> ModelSpec.parse("transformers/models/x").model, PRMSpec.parse("mc").kind.value
    ('models/x', 'mc')

"""

from llenvs.core.backend import SamplingParams
from llenvs.core.spec.answer_opening import AnswerOpening
from llenvs.core.spec.model_spec import (
    EMBEDDED_MODEL_NAME,
    ModelSpec,
    Provider,
    ServerMode,
)
from llenvs.core.spec.prm_spec import PRM_NAMES, PRMKind, PRMSpec
from llenvs.core.spec.run_spec import RunSpec
from llenvs.core.spec.segmenter_spec import SegmenterSpec
from llenvs.core.spec.stated_sampling import StatedSampling
from llenvs.core.spec.task_source import TaskSource

__all__ = [
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
]
