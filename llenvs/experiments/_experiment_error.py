"""``ExperimentError``: an experiment that cannot run as asked (a user can fix it).

Example:
    >>> isinstance(ExperimentError("x"), ValueError)
    True

"""

from __future__ import annotations

from llenvs.core.errors import LlenvsError

__all__ = ["ExperimentError"]


class ExperimentError(LlenvsError, ValueError):
    """A recipe that selects nothing, or an experiment file that belongs to another recipe."""
