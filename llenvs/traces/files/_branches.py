"""The branches sidecar: interventions on a trace file, appended next to it.

The sidecar's name is ``llenvs.traces.files``'s (``branches_path``).

Example:
    >>> list(read_branches("/nonexistent/runs.jsonl"))
    []

"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from llenvs.traces.files._reader import read_traces
from llenvs.traces.files._sidecar import branches_path
from llenvs.traces.files._writer import append_trace
from llenvs.traces.records import Trace

__all__ = ["append_branch", "branches_path", "read_branches"]


def append_branch(trace_path: str | os.PathLike[str], trace: Trace) -> Path:
    """Append an intervention's trace (it must have a ``parent``) to the sidecar; its path.

    The line is appended whole under the sidecar's lock (``append_trace``), so branches saved
    at once by several processes (two sessions, the app and the CLI) are all kept, one per line.

    Example:
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> append_branch("runs.jsonl", t)
        Traceback (most recent call last):
        ...
        ValueError: only an intervention's trace (one with a parent) goes to the branches file

    """
    if trace.parent is None:
        raise ValueError(
            "only an intervention's trace (one with a parent) goes to the branches file"
        )
    sidecar = branches_path(trace_path)
    append_trace(sidecar, trace)
    return sidecar


def read_branches(trace_path: str | os.PathLike[str]) -> Iterator[Trace]:
    """The branches of a trace file, read lazily; nothing when it has no sidecar.

    Example:
        >>> list(read_branches("/nonexistent/runs.jsonl"))
        []

    """
    sidecar = branches_path(trace_path)
    if sidecar.exists():
        yield from read_traces(sidecar)
