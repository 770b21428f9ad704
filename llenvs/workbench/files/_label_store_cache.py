"""A trace file's label store as the app reads it: parsed once, then only the lines appended.

Label mode reads the store several times a key (the key's own labels, the table's column, the
selected step's history) and appends to it at every key. ``read_labels`` parses the whole file,
so each key would parse every line again. ``cached_labels`` keeps, per labels file, what it
parsed and where it stopped; while the file's ``(mtime, size)`` is unchanged it answers from
that, and when the file has grown (this session's key, another session's, another process's
append: the store is append-only) it parses only the new complete lines and adds them. A file
that shrank, or whose bytes before the new ones changed (replaced, not appended to), is read
whole again. A torn last line (a writer still writing) is left for the next read; a bad line is
skipped and recorded in ``Labels.skipped`` with its file and line, as ``read_labels`` does.

Example:
    >>> import tempfile, os
    >>> from llenvs.traces import StepLabel, append_labels
    >>> path = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
    >>> cached_labels(path).history
    ()
    >>> _ = append_labels(path, [StepLabel("t", 0, 1, "ada")])
    >>> _ = append_labels(path, [StepLabel("t", 0, -1, "bo")])
    >>> [(label.labeller, label.label) for label in cached_labels(path).history]
    [('ada', 1), ('bo', -1)]

"""

from __future__ import annotations

import os
import threading
import warnings
from dataclasses import dataclass
from typing import BinaryIO

from llenvs.traces import Labels, StepLabel, labels_path
from llenvs.traces.files import SkippedLine
from llenvs.traces.labels import label_of_line

__all__ = ["cached_labels"]

_CHECKED = 64
"""How many bytes before the end of what was parsed must be unchanged for a grown file to be
taken as appended to (else it is read whole again)."""

_KEPT = 16
"""The most labels files kept parsed at once (the least recently read is dropped)."""


@dataclass(frozen=True)
class _Parsed:
    """What was parsed of one labels file, and where it stopped."""

    version: tuple[int, int]
    """The file's ``(mtime_ns, size)`` when it was read."""
    end: int
    """The offset just after the last complete line parsed."""
    lines: int
    """The number of lines before ``end``."""
    tail: bytes
    """The ``_CHECKED`` bytes before ``end``."""
    labels: Labels
    """The labels of the lines before ``end``."""


_parsed: dict[str, _Parsed] = {}
_lock = threading.Lock()


def cached_labels(trace_file: str | os.PathLike[str]) -> Labels:
    """The labels of ``trace_file``'s store (``read_labels``), parsing only what is new.

    Example:
        >>> cached_labels("/no/such/runs.jsonl")
        Labels(history=(), skipped=())

    """
    path = os.fspath(labels_path(trace_file))
    try:
        info = os.stat(path)
    except OSError:
        with _lock:
            _parsed.pop(path, None)
        return Labels(())
    version = (info.st_mtime_ns, info.st_size)
    with _lock:
        known = _parsed.pop(path, None)
        if known is None or known.version != version:
            known = _read(path, version, known)
        _parsed[path] = known  # the most recently read last
        while len(_parsed) > _KEPT:
            del _parsed[next(iter(_parsed))]
        return known.labels


def _read(path: str, version: tuple[int, int], known: _Parsed | None) -> _Parsed:
    """``known`` brought up to date with the file: its new lines, or the whole file again."""
    with open(path, "rb") as handle:
        if known is not None and known.end <= version[1]:
            handle.seek(known.end - len(known.tail))
            if handle.read(len(known.tail)) == known.tail:
                return _parse(path, version, handle, known)
        handle.seek(0)
        return _parse(path, version, handle, _Parsed(version, 0, 0, b"", Labels(())))


def _parse(path: str, version: tuple[int, int], handle: BinaryIO, since: _Parsed) -> _Parsed:
    """``since`` and the complete lines after it (the handle is at ``since.end``)."""
    data = handle.read()
    complete = data[: data.rfind(b"\n") + 1]
    history: list[StepLabel] = []
    skipped: list[SkippedLine] = []
    number = since.lines
    for line in complete.split(b"\n")[:-1]:  # lines end at b"\n" only, as ``read_labels`` reads
        number += 1
        label = label_of_line(line + b"\n", number, path)
        if isinstance(label, SkippedLine):
            skipped.append(label)
        elif label is not None:
            history.append(label)
    if skipped:
        named = "; ".join(str(line) for line in skipped[:3])
        warnings.warn(f"skipped {len(skipped)} line(s) of {path}: {named}", stacklevel=4)
    end = since.end + len(complete)
    kept = (since.tail + complete)[-_CHECKED:]
    labels = Labels(since.labels.history + tuple(history), since.labels.skipped + tuple(skipped))
    return _Parsed(version, end, number, kept, labels)
