"""The core of llenvs: values, the environment contract, segmenters and segmented environments.

Importing it imports no other llenvs layer and none of torch, transformers, streamlit, openai,
plotly or pandas.

Example:
    >>> from llenvs.core import SentenceSegmenter
    >>> SentenceSegmenter().segment("First step. Second step! Third?")
    ['First step.', 'Second step!', 'Third?']

"""

from llenvs.core._action import Action
from llenvs.core._answer_tags import ANSWER_CLOSE, ANSWER_OPEN
from llenvs.core._backend import (
    DEFAULT_MAX_TOKENS,
    BackendCapabilities,
    BoundaryFn,
    FinishReason,
    Generation,
    GenerationRequest,
    LocalWeights,
    Message,
    ModelBackend,
    Prompt,
    Role,
    SamplingParams,
    ScoreFn,
    TextScore,
)
from llenvs.core._bounds import (
    BATCH_SIZE,
    DATASET_SIZE,
    MAX_TOKENS,
    ON_POLICY_SAMPLES,
    ROLLOUT_BUDGET,
    SAMPLES,
    SEED,
    SUBSTITUTE_TRIES,
    TOKEN_BUDGET,
    Bound,
    FloatBound,
)
from llenvs.core._check_env import check_env
from llenvs.core._environment import Environment, EnvSpec, ResetOptions
from llenvs.core._intervention import (
    COMPLETE,
    INTERVENTION,
    Complete,
    Feedback,
    Force,
    Intervention,
    Resample,
    Substitute,
    intervention_from_record,
)
from llenvs.core._intervention_kind import InterventionKind
from llenvs.core._json_line import BOM, JsonLineError, parse_json_line, parse_json_text
from llenvs.core._record_types import (
    HERE,
    INT64,
    RECORD,
    Coded,
    Count,
    Flag,
    Int64,
    Number,
    Positive,
    SortedValues,
    Text,
    computed,
    omit_when_empty,
)
from llenvs.core._records import read_record, record_dict, record_schema
from llenvs.core._retry_policy import NO_RETRY, RetryPolicy
from llenvs.core._reward_function import BatchRewardFunction, RewardFunction, StepTriple
from llenvs.core._run_control import RunControl
from llenvs.core._run_events import (
    RunEvent,
    RunObserver,
    Stopped,
    StopToken,
    TokenGenerated,
    fan_out,
)
from llenvs.core._segmented_environment import SegmentedEnvironment
from llenvs.core._segmented_hidden import SegmentedHidden, segmented_hidden
from llenvs.core._signal import Rewards, RewardType, Signal
from llenvs.core._state import Observation, State, StateMetadata
from llenvs.core._step_result import StepResult
from llenvs.core._trajectory import Trajectory, Transition
from llenvs.core.errors import (
    BackendError,
    EnvironmentCheckError,
    LlenvsError,
    RecordFormatError,
    SegmenterSpecError,
    TaskIndexError,
    TerminalStateError,
    UnknownName,
)
from llenvs.core.run_spec import ModelSpec, PRMSpec, RunSpec
from llenvs.core.segmenters import (
    CompositeSegmenter,
    LineSegmenter,
    LLMSegmenter,
    PatternSegmenter,
    Segmenter,
    SegmentStream,
    SentenceSegmenter,
    TokenSegmenter,
    default_segmenter,
    segmenter_from_spec,
)

__all__ = [
    "ANSWER_CLOSE",
    "ANSWER_OPEN",
    "BATCH_SIZE",
    "BOM",
    "COMPLETE",
    "DATASET_SIZE",
    "DEFAULT_MAX_TOKENS",
    "HERE",
    "INT64",
    "INTERVENTION",
    "MAX_TOKENS",
    "NO_RETRY",
    "ON_POLICY_SAMPLES",
    "RECORD",
    "ROLLOUT_BUDGET",
    "SAMPLES",
    "SEED",
    "SUBSTITUTE_TRIES",
    "TOKEN_BUDGET",
    "Action",
    "BackendCapabilities",
    "BackendError",
    "BatchRewardFunction",
    "Bound",
    "BoundaryFn",
    "Coded",
    "Complete",
    "CompositeSegmenter",
    "Count",
    "EnvSpec",
    "Environment",
    "EnvironmentCheckError",
    "Feedback",
    "FinishReason",
    "Flag",
    "FloatBound",
    "Force",
    "Generation",
    "GenerationRequest",
    "Int64",
    "Intervention",
    "InterventionKind",
    "JsonLineError",
    "LLMSegmenter",
    "LineSegmenter",
    "LlenvsError",
    "LocalWeights",
    "Message",
    "ModelBackend",
    "ModelSpec",
    "Number",
    "Observation",
    "PRMSpec",
    "PatternSegmenter",
    "Positive",
    "Prompt",
    "RecordFormatError",
    "Resample",
    "ResetOptions",
    "RetryPolicy",
    "RewardFunction",
    "RewardType",
    "Rewards",
    "Role",
    "RunControl",
    "RunEvent",
    "RunObserver",
    "RunSpec",
    "SamplingParams",
    "ScoreFn",
    "SegmentStream",
    "SegmentedEnvironment",
    "SegmentedHidden",
    "Segmenter",
    "SegmenterSpecError",
    "SentenceSegmenter",
    "Signal",
    "SortedValues",
    "State",
    "StateMetadata",
    "StepResult",
    "StepTriple",
    "StopToken",
    "Stopped",
    "Substitute",
    "TaskIndexError",
    "TerminalStateError",
    "Text",
    "TextScore",
    "TokenGenerated",
    "TokenSegmenter",
    "Trajectory",
    "Transition",
    "UnknownName",
    "check_env",
    "computed",
    "default_segmenter",
    "fan_out",
    "intervention_from_record",
    "omit_when_empty",
    "parse_json_line",
    "parse_json_text",
    "read_record",
    "record_dict",
    "record_schema",
    "segmented_hidden",
    "segmenter_from_spec",
]
