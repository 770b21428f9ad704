"""Where the Browse page is: file, trace (its line) and segment, kept in the URL.

The query string ``?file=<path>&trace=<line>&segment=<index>`` makes a view shareable (with
``&mode=label`` in label mode, which a move keeps); the pages read and write it through
``llenvs.ui.common``.

Example:
    >>> BrowseLocation.from_params({"file": "runs.jsonl", "trace": "4", "segment": "x"})
    BrowseLocation(file='runs.jsonl', line=4, segment=0)

"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["KEPT_PARAMS", "MODE_PARAM", "QUEUE_PARAM", "BrowseLocation", "neighbour"]

MODE_PARAM = "mode"
"""The URL's parameter that keeps Browse's label mode over a reload or a shared link."""

QUEUE_PARAM = "queue"
"""The URL's parameter naming the label queue label mode walks (Search's exported queues)."""

KEPT_PARAMS = (MODE_PARAM, QUEUE_PARAM)
"""The URL's parameters a move (``llenvs.ui.common.go_to``) keeps: how to view, not where."""


@dataclass(frozen=True)
class BrowseLocation:
    """A trace file, a trace in it (by line) and a segment of it.

    Example:
        >>> BrowseLocation("a.jsonl", 2, 1).to_params()
        {'file': 'a.jsonl', 'trace': '2', 'segment': '1'}

    """

    file: str | None = None
    """The trace file's path, or None for none chosen."""
    line: int | None = None
    """The line of the trace in the file, or None for the first one shown."""
    segment: int = 0
    """The selected segment's index."""

    @classmethod
    def from_params(cls, params: Mapping[str, str]) -> BrowseLocation:
        """The location a query string names; unreadable numbers fall back to defaults.

        Example:
            >>> BrowseLocation.from_params({})
            BrowseLocation(file=None, line=None, segment=0)

        """
        return cls(
            file=params.get("file") or None,
            line=_number(params.get("trace")),
            segment=max(_number(params.get("segment")) or 0, 0),
        )

    def to_params(self) -> dict[str, str]:
        """The query parameters of this location (unset fields left out).

        Example:
            >>> BrowseLocation().to_params()
            {'segment': '0'}

        """
        params = {"segment": str(self.segment)}
        if self.line is not None:
            params = {"trace": str(self.line), **params}
        if self.file is not None:
            params = {"file": self.file, **params}
        return params


def neighbour(lines: Sequence[int], line: int | None, step: int) -> int | None:
    """The line ``step`` places after ``line`` in ``lines`` (clamped); the first when not in it.

    Example:
        >>> neighbour([2, 5, 9], 5, 1), neighbour([2, 5, 9], 9, 1), neighbour([2, 5], 7, -1)
        (9, 9, 2)
        >>> neighbour([], 3, 1) is None
        True

    """
    if not lines:
        return None
    if line is None or line not in lines:
        return lines[0]
    at = list(lines).index(line) + step
    return lines[min(max(at, 0), len(lines) - 1)]


def _number(value: str | None) -> int | None:
    try:
        return None if value is None else int(value)
    except ValueError:
        return None
