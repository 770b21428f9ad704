"""llenvs: step-level work on LLM reasoning.

Cut a model's response into segments, score every segment, generate segment by segment with
interventions between segments, and browse it all in a workbench.

Example:
    >>> import llenvs
    >>> llenvs.__version__
    '0.1.0'

"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("llenvs")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.1.0"

__all__ = ["__version__"]
