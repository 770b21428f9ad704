"""The errors a trace file, a trace record or an import raises when it cannot be read.

It lives here rather than in ``llenvs.core.errors`` because traces sit above core; it derives
from :class:`~llenvs.core.errors.LlenvsError`, so one clause still catches every llenvs error.

Example:
    >>> from llenvs.core.errors import LlenvsError
    >>> issubclass(TraceFormatError, LlenvsError), issubclass(TraceFormatError, ValueError)
    (True, True)

"""

from __future__ import annotations

from llenvs.core.errors import LlenvsError

__all__ = ["TraceFormatError", "WrongFormatError"]


class TraceFormatError(LlenvsError, ValueError):
    """A trace record that does not follow the schema (a wrong type, a missing field, a version).

    Example:
        >>> str(TraceFormatError("trace.success: expected bool or null, got 'yes'"))
        "trace.success: expected bool or null, got 'yes'"

    """

    __module__ = "llenvs.traces"  # tracebacks name the public face, not the private module


class WrongFormatError(TraceFormatError):
    """A file imported under one format whose rows are in another: the import is refused.

    Example:
        >>> str(WrongFormatError("x.jsonl, line 1: a PRM800K record, not a processbench row"))
        'x.jsonl, line 1: a PRM800K record, not a processbench row'

    """

    __module__ = "llenvs.traces"  # tracebacks name the public face, not the private module
