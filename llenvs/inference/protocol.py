"""The backend contract, re-exported from ``llenvs.core`` (the bottom layer).

Example:
    >>> from llenvs.inference.protocol import SamplingParams
    >>> SamplingParams(max_tokens=2048).max_tokens
    2048

"""

from llenvs.core import (
    DEFAULT_MAX_TOKENS,
    BackendCapabilities,
    BoundaryFn,
    FinishReason,
    Generation,
    GenerationRequest,
    Message,
    ModelBackend,
    Prompt,
    Role,
    SamplingParams,
    ScoreFn,
    TextScore,
)

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "BackendCapabilities",
    "BoundaryFn",
    "FinishReason",
    "Generation",
    "GenerationRequest",
    "Message",
    "ModelBackend",
    "Prompt",
    "Role",
    "SamplingParams",
    "ScoreFn",
    "TextScore",
]
