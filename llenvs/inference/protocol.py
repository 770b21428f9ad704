"""The backend contract, re-exported from ``llenvs.core.backend`` (the bottom layer).

Example:
    >>> from llenvs.inference.protocol import SamplingParams
    >>> SamplingParams(max_tokens=2048).max_tokens
    2048

"""

from llenvs.core import backend as _backend
from llenvs.core.backend import *  # noqa: F403

__all__ = _backend.__all__
