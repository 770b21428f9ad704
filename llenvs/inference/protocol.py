"""The backend contract, re-exported from ``llenvs.core`` (the bottom layer).

The guide imports ``SamplingParams`` from here; each name is the core one (``as`` marks the
re-export).

Example:
    >>> from llenvs.inference.protocol import SamplingParams
    >>> SamplingParams(max_tokens=2048).max_tokens
    2048

"""

from llenvs.core import DEFAULT_MAX_TOKENS as DEFAULT_MAX_TOKENS
from llenvs.core import BackendCapabilities as BackendCapabilities
from llenvs.core import BoundaryFn as BoundaryFn
from llenvs.core import FinishReason as FinishReason
from llenvs.core import Generation as Generation
from llenvs.core import GenerationRequest as GenerationRequest
from llenvs.core import Message as Message
from llenvs.core import ModelBackend as ModelBackend
from llenvs.core import Prompt as Prompt
from llenvs.core import Role as Role
from llenvs.core import SamplingParams as SamplingParams
from llenvs.core import ScoreFn as ScoreFn
from llenvs.core import TextScore as TextScore
