"""Where the Browse page is: file, trace (its line) and segment, kept in the URL.

The query string ``?file=<path>&trace=<line>&segment=<index>`` makes a view shareable (with
``&mode=label`` in label mode, which a move keeps); the pages read and write it through
``read_location`` and ``go_to``. A URL naming a file outside the
traces folders is refused when it is read (``llenvs.ui.trace_roots``), before anything opens it.

Example:
    >>> BrowseLocation.from_params({"file": "runs.jsonl", "trace": "4", "segment": "x"})
    BrowseLocation(file='runs.jsonl', line=4, segment=0)

"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import streamlit as st

from llenvs.ui.trace_roots import resolve_trace_path

__all__ = ["KEPT_PARAMS", "MODE_PARAM", "BrowseLocation", "go_to", "neighbour", "read_location"]

MODE_PARAM = "mode"
"""The URL's parameter that keeps Browse's label mode over a reload or a shared link."""

KEPT_PARAMS = (MODE_PARAM,)
"""The URL's parameters a move (``go_to``) keeps: they say how to view, not where."""


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


def read_location() -> BrowseLocation:
    """The location in the page's URL, its file checked against the traces folders.

    A file outside them (``/etc/passwd``, ``../x``, a symlink out) raises the
    ``PermissionError`` of ``resolve_trace_path``, which names the folders.

    Example:
        >>> go_to(BrowseLocation("/etc/passwd"))
        >>> read_location()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        PermissionError: `/etc/passwd` is outside the traces folders; the app opens files only ...
        >>> go_to(BrowseLocation()); read_location()
        BrowseLocation(file=None, line=None, segment=0)

    """
    location = BrowseLocation.from_params(st.query_params.to_dict())
    if location.file is not None:
        resolve_trace_path(location.file)
    return location


def go_to(location: BrowseLocation) -> None:
    """Put ``location`` in the URL (the page shows it on this or the next run).

    Example:
        >>> go_to(BrowseLocation("a.jsonl", 1, 0))

    """
    kept = {name: st.query_params[name] for name in KEPT_PARAMS if name in st.query_params}
    st.query_params.from_dict({**location.to_params(), **kept})


def _number(value: str | None) -> int | None:
    try:
        return None if value is None else int(value)
    except ValueError:
        return None
