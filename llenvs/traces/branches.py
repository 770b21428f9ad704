"""The branches sidecar: interventions on a trace file, appended next to it.

Example:
    >>> str(branches_path("out/runs.jsonl"))
    'out/runs.branches.jsonl'

"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from llenvs.traces.trace import Trace
from llenvs.traces.trace_reader import read_traces
from llenvs.traces.trace_writer import append_trace

__all__ = ["append_branch", "branches_path", "read_branches"]


def branches_path(trace_path: str | os.PathLike[str]) -> Path:
    """The sidecar of a trace file: ``<name>.branches.jsonl`` in the same folder.

    ``runs.jsonl`` gives ``runs.branches.jsonl``; any other name gets the suffix appended. A
    sidecar is its own sidecar, so branches of branches sit beside their parents in one file.

    Example:
        >>> branches_path("runs.json").name, branches_path("runs.branches.jsonl").name
        ('runs.json.branches.jsonl', 'runs.branches.jsonl')

    """
    path = Path(trace_path)
    if path.name.endswith(".branches.jsonl"):
        return path
    stem = path.stem if path.suffix == ".jsonl" else path.name
    return path.with_name(f"{stem}.branches.jsonl")


def append_branch(trace_path: str | os.PathLike[str], trace: Trace) -> Path:
    """Append an intervention's trace (it must have a ``parent``) to the sidecar; its path.

    The line is appended whole under the sidecar's lock (``append_trace``), so branches saved
    at once by several processes (two sessions, the app and the CLI) are all kept, one per line.

    Example:
        >>> from llenvs.traces.task_record import TaskRecord
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
