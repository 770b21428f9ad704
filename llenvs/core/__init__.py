"""The core of llenvs: values, the environment contract, segmenters and segmented environments.

Importing it imports no other llenvs layer and none of torch, transformers, streamlit, openai,
plotly or pandas.

Example:
    >>> from llenvs.core import SentenceSegmenter
    >>> SentenceSegmenter().segment("First step. Second step! Third?")
    ['First step.', 'Second step!', 'Third?']

"""

from llenvs.core.action import Action
from llenvs.core.backend import (
    DEFAULT_MAX_TOKENS,
    BackendCapabilities,
    FinishReason,
    Generation,
    GenerationRequest,
    Message,
    ModelBackend,
    Prompt,
    SamplingParams,
)
from llenvs.core.check_env import check_env
from llenvs.core.environment import Environment, EnvSpec
from llenvs.core.errors import (
    BackendError,
    EnvironmentCheckError,
    LlenvsError,
    SegmenterSpecError,
    TaskIndexError,
    TerminalStateError,
    UnknownName,
)
from llenvs.core.reward_function import BatchRewardFunction, RewardFunction
from llenvs.core.segmented_environment import SegmentedEnvironment
from llenvs.core.segmented_hidden import SegmentedHidden
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
from llenvs.core.signal import Rewards, RewardType, Signal
from llenvs.core.spec import ModelSpec, PRMSpec, RunSpec
from llenvs.core.state import Observation, State, StateMetadata
from llenvs.core.step_result import StepResult
from llenvs.core.trajectory import Trajectory, Transition

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "Action",
    "BackendCapabilities",
    "BackendError",
    "BatchRewardFunction",
    "CompositeSegmenter",
    "EnvSpec",
    "Environment",
    "EnvironmentCheckError",
    "FinishReason",
    "Generation",
    "GenerationRequest",
    "LLMSegmenter",
    "LineSegmenter",
    "LlenvsError",
    "Message",
    "ModelBackend",
    "ModelSpec",
    "Observation",
    "PRMSpec",
    "PatternSegmenter",
    "Prompt",
    "RewardFunction",
    "RewardType",
    "Rewards",
    "RunSpec",
    "SamplingParams",
    "SegmentStream",
    "SegmentedEnvironment",
    "SegmentedHidden",
    "Segmenter",
    "SegmenterSpecError",
    "SentenceSegmenter",
    "Signal",
    "State",
    "StateMetadata",
    "StepResult",
    "TaskIndexError",
    "TerminalStateError",
    "TokenSegmenter",
    "Trajectory",
    "Transition",
    "UnknownName",
    "check_env",
    "default_segmenter",
    "segmenter_from_spec",
]
