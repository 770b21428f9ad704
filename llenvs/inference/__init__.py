"""Model backends by name, and the backend contract.

Example:
    >>> get_backend("scripted", outputs=["Four."]).name
    'scripted'

"""

from llenvs.inference._backend_registry import (
    NO_RESPONSE,
    backend_options,
    backend_providers,
    backend_spec,
    build_backend,
    default_precision,
    get_backend,
)
from llenvs.inference._backends.http_options import HTTPOptions
from llenvs.inference._quiet import quiet_transformers
from llenvs.inference._responses_file import read_responses

__all__ = [
    "NO_RESPONSE",
    "HTTPOptions",
    "backend_options",
    "backend_providers",
    "backend_spec",
    "build_backend",
    "default_precision",
    "get_backend",
    "quiet_transformers",
    "read_responses",
]
