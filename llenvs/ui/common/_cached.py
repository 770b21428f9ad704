"""Cached loaders for the pages: a file's index, one trace, a text search, branch counts.

Each is keyed by the file's path and its ``(mtime, size)`` stamp, so an edited file is read again.
``st.cache_data`` keeps the parsed values; at most a few indexes and a few hundred traces.

Example:
    >>> stamp("/no/such/file")
    (0, 0)

"""

from __future__ import annotations

import os

import streamlit as st

from llenvs.traces import Trace, branches_path
from llenvs.workbench.browse import branch_counts
from llenvs.workbench.files import TraceIndex, lines_containing, load_line

__all__ = ["cached_branch_counts", "cached_index", "cached_search", "cached_trace", "stamp"]


def stamp(path: str) -> tuple[int, int]:
    """The ``(mtime_ns, size)`` of ``path``, ``(0, 0)`` when it does not exist.

    Example:
        >>> import tempfile
        >>> stamp(tempfile.mkdtemp())[0] > 0
        True

    """
    try:
        info = os.stat(path)
    except OSError:
        return (0, 0)
    return (info.st_mtime_ns, info.st_size)


@st.cache_data(max_entries=4, show_spinner="Indexing the trace file…")
def _index(path: str, version: tuple[int, int]) -> TraceIndex:
    del version
    return TraceIndex.scan(path)


@st.cache_data(max_entries=256, show_spinner=False)
def _trace(path: str, offset: int, line: int, version: tuple[int, int]) -> Trace:
    del version
    return load_line(path, offset, line)


@st.cache_data(max_entries=4, show_spinner=False)
def _branch_counts(path: str, version: tuple[int, int]) -> dict[str, int]:
    del version
    return branch_counts(path)


def cached_branch_counts(path: str) -> dict[str, int]:
    """Branches per trace id in the sidecar of ``path`` (read once per version of the sidecar).

    Example:
        >>> cached_branch_counts("/no/such.jsonl")
        {}

    """
    return _branch_counts(path, stamp(str(branches_path(path))))


@st.cache_data(max_entries=16, show_spinner="Searching…")
def _search(path: str, text: str, version: tuple[int, int]) -> frozenset[int]:
    del version
    return lines_containing(path, text)


def cached_index(path: str) -> TraceIndex:
    """The index of ``path`` (built once per version of the file).

    Example:
        >>> cached_index("/no/such.jsonl")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        FileNotFoundError: ...

    """
    return _index(path, stamp(path))


def cached_trace(index: TraceIndex, line: int) -> Trace:
    """The trace on ``line`` of an indexed file.

    Example:
        >>> import pandas as pd
        >>> cached_trace(TraceIndex("x", pd.DataFrame({"line": [], "offset": []}), ()), 1)
        Traceback (most recent call last):
        ...
        KeyError: 'x has no trace on line 1'

    """
    return _trace(index.path, index.offset_of(line), line, stamp(index.path))


def cached_search(path: str, text: str) -> frozenset[int]:
    """Lines of ``path`` containing ``text`` (see ``lines_containing``).

    Example:
        >>> cached_search("/no/such.jsonl", "x")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        FileNotFoundError: ...

    """
    return _search(path, text, stamp(path))
