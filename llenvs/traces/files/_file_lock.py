"""An advisory lock per file, so writers from several processes never interleave or lose lines.

Every writer of a trace file, a branches sidecar or a results file holds ``file_lock(path)``
around its whole read-modify-write or append: an append done as copy + rename from two
processes at once would otherwise copy the same old bytes, and one writer's lines would be lost.
The lock is ``fcntl.flock`` on ``<file>.lock`` beside the file (Linux, and any POSIX system with
``flock``). It is held by an open file, so a process that dies (even by SIGKILL) releases it;
the lock file is removed by the last holder, so none is left behind after a clean write, and a
stale one left by a killed writer is reused, then removed. Readers take no lock: writers replace
files by rename or append whole lines, so a reader sees old or new bytes, at worst a torn last
line, which readers skip with a warning.

The lock is re-entrant within a thread (an evaluation holds it across its read and rewrite, and
the rewrite takes it again); other threads and processes wait.

Example:
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
    >>> with file_lock(path):
    ...     os.path.exists(lock_path(path))
    True
    >>> os.path.exists(lock_path(path))
    False

"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["file_lock", "lock_path"]

_held = threading.local()
"""Per thread: the lock files this thread holds (by path), with their descriptor and depth."""


def lock_path(path: str | os.PathLike[str]) -> str:
    """The lock file of ``path``: ``<file>.lock`` beside it, as an absolute path.

    Example:
        >>> lock_path("/data/runs.jsonl")
        '/data/runs.jsonl.lock'

    """
    return os.path.abspath(os.fspath(path)) + ".lock"


@contextmanager
def file_lock(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold the exclusive advisory lock of ``path`` (waiting for it) for the ``with`` block.

    The folder of ``path`` must exist. Re-entrant within a thread.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
        >>> with file_lock(path), file_lock(path):  # the same thread may take it again
        ...     pass

    """
    where = lock_path(path)
    held = _holdings()
    if where in held:
        descriptor, depth = held[where]
        held[where] = (descriptor, depth + 1)
        try:
            yield
        finally:
            descriptor, depth = held[where]
            held[where] = (descriptor, depth - 1)
        return
    descriptor = _acquire(where)
    held[where] = (descriptor, 1)
    try:
        yield
    finally:
        del held[where]
        _release(where, descriptor)


def _holdings() -> dict[str, tuple[int, int]]:
    """The locks held by this thread; a child forked while one was held starts afresh."""
    pid = os.getpid()
    if getattr(_held, "pid", None) != pid:
        _held.pid = pid
        _held.locks = {}
    locks: dict[str, tuple[int, int]] = _held.locks
    return locks


def _acquire(where: str) -> int:
    """Open ``where`` and lock it; retry when a holder removed it meanwhile."""
    while True:
        descriptor = os.open(where, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            mine = os.fstat(descriptor)
            try:
                named = os.stat(where)
            except FileNotFoundError:
                named = None
        except BaseException:
            os.close(descriptor)
            raise
        if named is not None and (named.st_dev, named.st_ino) == (mine.st_dev, mine.st_ino):
            return descriptor
        os.close(descriptor)  # the file we locked was removed by its last holder: start over


def _release(where: str, descriptor: int) -> None:
    """Remove the lock file while still holding it, then let go (waiters on it start over)."""
    try:
        os.unlink(where)
    except FileNotFoundError:
        pass
    finally:
        os.close(descriptor)
