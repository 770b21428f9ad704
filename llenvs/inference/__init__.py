"""Model backends by name, and the backend contract.

Example:
    >>> get_backend("scripted", outputs=["Four."]).name
    'scripted'

"""

from llenvs.inference.backend_registry import (
    backend_options,
    backend_providers,
    backend_spec,
    build_backend,
    default_precision,
    get_backend,
)
from llenvs.inference.quiet import quiet_transformers

__all__ = [
    "backend_options",
    "backend_providers",
    "backend_spec",
    "build_backend",
    "default_precision",
    "get_backend",
    "quiet_transformers",
]
