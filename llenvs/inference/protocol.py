"""The backend contract, re-exported from ``llenvs.core.backend`` (the bottom layer).

Example:
    >>> from llenvs.inference.protocol import SamplingParams
    >>> SamplingParams(max_tokens=2048).max_tokens
    2048

"""

from llenvs.core.backend import (
    BoundaryFn,
    FinishReason,
    Generation,
    GenerationRequest,
    Message,
    ModelBackend,
    Prompt,
    Role,
    SamplingParams,
)

__all__ = [
    "BoundaryFn",
    "FinishReason",
    "Generation",
    "GenerationRequest",
    "Message",
    "ModelBackend",
    "Prompt",
    "Role",
    "SamplingParams",
]
