r"""Which tasks a trace file holds, by identity, read from its first lines only.

Compare runs opens on the two runs that share the most tasks (``default_runs`` in
``llenvs.ui.runs``); to find them it reads each file of the folder, so it reads only
the first ``SAMPLED_LINES`` of each (a file of the same tasks as another shares them from its
first lines) and nothing of a line but its task. Lines that cannot be read are passed over
here; the file's own index reports them when it is opened.

Example:
    >>> import tempfile, os
    >>> from llenvs.traces import TaskRecord, Trace, write_traces
    >>> path = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "4 * 3?"), response="", segments=())
    >>> _ = write_traces(path, [t, t]); _ = open(path, "a").write("oops\n")
    >>> file_tasks(path) == frozenset({TaskIdentity.of("e", "4 * 3?")})
    True

"""

from __future__ import annotations

import itertools
import os
from contextlib import closing

from llenvs.traces import TraceFormatError, TraceReader
from llenvs.traces.files import max_line_bytes
from llenvs.traces.records import TaskIdentity, prompt_hash_of

__all__ = ["SAMPLED_LINES", "file_tasks"]

SAMPLED_LINES = 2_000
"""The most lines of a file read to find its tasks."""


def file_tasks(path: str | os.PathLike[str], lines: int = SAMPLED_LINES) -> frozenset[TaskIdentity]:
    """The identities of the tasks on the first ``lines`` lines of ``path`` (none if unreadable).

    Example:
        >>> file_tasks("/no/such.jsonl")
        frozenset()

    """
    if lines <= 0:
        raise ValueError(f"lines must be > 0, got {lines}")
    reader = TraceReader(path, max_line=max_line_bytes(), report=lambda skipped: None)
    found = set()
    try:
        with closing(reader.records()) as records:  # the file is closed where reading stops
            for _, _, data in itertools.islice(records, lines):
                identity = _identity(data)
                if identity is not None:
                    found.add(identity)
    except (OSError, TraceFormatError):  # gone, or written by a newer llenvs: said when opened
        return frozenset()
    return frozenset(found)


def _identity(data: object) -> TaskIdentity | None:
    """The task identity of one line's JSON; None when it is not a trace's."""
    task = data.get("task") if isinstance(data, dict) else None
    if not isinstance(task, dict) or "environment" not in task:
        return None
    prompt_hash = task.get("prompt_hash") or prompt_hash_of(str(task.get("prompt", "")))
    return TaskIdentity(str(task["environment"]), str(prompt_hash))
