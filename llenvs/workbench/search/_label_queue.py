r"""A label queue: the steps a search found, in order, for a labeller to walk.

A queue file is JSON Lines, one step a line: ``{"file": ..., "trace": N, "step": K}`` (the trace
by its line, as ``--trace`` counts; the step by its segment index), written atomically
(``write_lines_atomically``). Search's "Export as label queue" and ``llenvs search --queue``
write one; the Search page opens it and links each step to Browse in label mode, where the
label keys label it, and says which step is the next without a label (``next_unlabelled``).
The app keeps queues in the traces folder's ``.llenvs-search/queues/`` (``queue_folder``).

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "q.queue.jsonl"
    >>> write_label_queue(path, [QueueEntry("runs.jsonl", 2, 5), QueueEntry("runs.jsonl", 3, 0)])
    2
    >>> path.read_text().splitlines()[0]
    '{"file": "runs.jsonl", "trace": 2, "step": 5}'
    >>> read_label_queue(path)[1]
    QueueEntry(file='runs.jsonl', trace=3, step=0)

"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from llenvs.core.errors import LlenvsError
from llenvs.traces.files import write_lines_atomically
from llenvs.workbench.search._step_store import INDEX_FOLDER

__all__ = [
    "QUEUE_SUFFIX",
    "LabelQueueError",
    "QueueEntry",
    "next_unlabelled",
    "queue_folder",
    "queue_step",
    "read_label_queue",
    "write_label_queue",
]

QUEUE_SUFFIX = ".queue.jsonl"
"""How a queue file's name ends."""


class LabelQueueError(LlenvsError, ValueError):
    """A queue file that does not read: names the file and the line."""

    __module__ = "llenvs.workbench.search"


@dataclass(frozen=True)
class QueueEntry:
    """One step of a queue."""

    file: str
    """The trace file."""
    trace: int
    """The trace's line in the file (from 1)."""
    step: int
    """The segment's index."""


def queue_folder(traces_folder: str | os.PathLike[str]) -> Path:
    """Where the app keeps the label queues of a traces folder.

    Example:
        >>> queue_folder("out").as_posix()
        'out/.llenvs-search/queues'

    """
    return Path(traces_folder) / INDEX_FOLDER / "queues"


def write_label_queue(path: str | os.PathLike[str], entries: Iterable[QueueEntry]) -> int:
    """Write ``entries`` to ``path`` (replacing it, atomically); how many were written."""
    lines = (json.dumps(asdict(entry), ensure_ascii=False).encode() + b"\n" for entry in entries)
    return write_lines_atomically(path, lines)


def read_label_queue(path: str | os.PathLike[str]) -> list[QueueEntry]:
    r"""The entries of the queue file ``path``, in order; one error naming a line that is wrong.

    Example:
        >>> import tempfile, pathlib
        >>> bad = pathlib.Path(tempfile.mkdtemp()) / "q.queue.jsonl"
        >>> _ = bad.write_text('{"file": "a.jsonl", "trace": "x", "step": 0}\n')
        >>> read_label_queue(bad)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.workbench.search.LabelQueueError: ...q.queue.jsonl, line 1: not a queue entry ...

    """
    entries = []
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                entry = QueueEntry(str(record["file"]), record["trace"], record["step"])
                if not all(isinstance(n, int) and n >= 0 for n in (entry.trace, entry.step)):
                    raise TypeError("trace and step must be whole numbers")
            except (ValueError, KeyError, TypeError) as error:
                raise LabelQueueError(
                    f"{path}, line {number}: not a queue entry "
                    f'{{"file": ..., "trace": N, "step": K}} ({error})'
                ) from None
            entries.append(entry)
    return entries


def next_unlabelled(
    entries: Sequence[QueueEntry], labelled: Callable[[QueueEntry], bool]
) -> int | None:
    """The place of the first entry not ``labelled`` yet, or None when every one is.

    Example:
        >>> queue = [QueueEntry("a", 1, 0), QueueEntry("a", 1, 1)]
        >>> next_unlabelled(queue, lambda e: e.step == 0), next_unlabelled(queue, lambda e: True)
        (1, None)

    """
    return next((at for at, entry in enumerate(entries) if not labelled(entry)), None)


def queue_step(
    entries: Sequence[QueueEntry], file: str, trace: int, step: int, move: int
) -> tuple[int | None, QueueEntry | None]:
    """Where ``file:trace`` step ``step`` stands in ``entries``, and the entry ``move`` away.

    The place is None when the step is not in the queue (then so is the entry); the entry is
    None past either end. Files compare by their resolved paths.

    Example:
        >>> queue = [QueueEntry("a.jsonl", 1, 2), QueueEntry("b.jsonl", 3, 0)]
        >>> queue_step(queue, "a.jsonl", 1, 2, 1)
        (0, QueueEntry(file='b.jsonl', trace=3, step=0))
        >>> queue_step(queue, "b.jsonl", 3, 0, 1), queue_step(queue, "a.jsonl", 9, 9, 1)
        ((1, None), (None, None))

    """
    here = (Path(file).resolve(), trace, step)
    place = next(
        (n for n, e in enumerate(entries) if (Path(e.file).resolve(), e.trace, e.step) == here),
        None,
    )
    if place is None or not 0 <= place + move < len(entries):
        return place, None
    return place, entries[place + move]
