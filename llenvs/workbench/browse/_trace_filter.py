"""The Browse page's trace filters: environment, task, success, reward range, PRM minimum, text.

Example:
    >>> import pandas as pd
    >>> table = pd.DataFrame({"line": [1, 2], "environment": ["a", "b"], "task": [0, 1],
    ...     "success": [True, None], "reward": [1.0, float("nan")], "prm_min": [0.9, 0.2]})
    >>> TraceFilter(prm_min=0.5).apply(table)["line"].tolist()
    [1]

"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from enum import Enum

import pandas as pd

__all__ = ["Success", "TraceFilter"]


class Success(Enum):
    """Which traces the success filter keeps.

    Example:
        >>> [s.value for s in Success]
        ['any', 'succeeded', 'failed', 'no verdict']

    """

    ANY = "any"
    """Every trace."""
    SUCCEEDED = "succeeded"
    """Traces with ``success`` true."""
    FAILED = "failed"
    """Traces with ``success`` false."""
    UNKNOWN = "no verdict"
    """Traces with ``success`` null."""


@dataclass(frozen=True)
class TraceFilter:
    """Which rows of a trace index to show; an unset field keeps every row.

    Example:
        >>> TraceFilter().is_empty, TraceFilter(task=3).is_empty
        (True, False)

    """

    environments: tuple[str, ...] = ()
    """Keep these environments (all when empty)."""
    task: int | None = None
    """Keep this task index."""
    success: Success = Success.ANY
    """Keep traces by their verdict."""
    reward_range: tuple[float, float] | None = None
    """Keep traces whose final reward lies in this closed range (traces without one drop)."""
    prm_min: float | None = None
    """Keep traces whose every PRM score is at least this (traces without scores drop)."""
    lines: Collection[int] | None = None
    """Keep these line numbers (a text search's matches)."""

    @property
    def is_empty(self) -> bool:
        """True when the filter keeps every row.

        Example:
            >>> TraceFilter(success=Success.FAILED).is_empty
            False

        """
        return self == TraceFilter()

    def apply(self, table: pd.DataFrame) -> pd.DataFrame:
        """The rows of ``table`` (an index table) this filter keeps, in order.

        Example:
            >>> t = pd.DataFrame({"line": [1, 2, 3], "environment": ["a", "b", "a"],
            ...     "task": [0, 0, 1], "success": [True, False, None],
            ...     "reward": [1.0, 0.0, 0.5], "prm_min": [0.1, 0.2, 0.3]})
            >>> f = TraceFilter(environments=("a",), success=Success.UNKNOWN)
            >>> f.apply(t)["line"].tolist()
            [3]
            >>> TraceFilter(reward_range=(0.2, 1)).apply(t)["line"].tolist()
            [1, 3]

        """
        keep = pd.Series(True, index=table.index)
        if self.environments:
            keep &= table["environment"].isin(self.environments)
        if self.task is not None:
            keep &= table["task"] == self.task
        if self.success is Success.SUCCEEDED:
            keep &= table["success"].map(lambda v: v is True)
        elif self.success is Success.FAILED:
            keep &= table["success"].map(lambda v: v is False)
        elif self.success is Success.UNKNOWN:
            keep &= table["success"].isna()
        if self.reward_range is not None:
            low, high = self.reward_range
            keep &= table["reward"].between(low, high)
        if self.prm_min is not None:
            keep &= table["prm_min"] >= self.prm_min
        if self.lines is not None:
            keep &= table["line"].isin(list(self.lines))
        return table[keep]
