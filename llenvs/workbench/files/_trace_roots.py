"""Which files the workbench may open: those inside its traces folders, and nothing else.

The folders ("roots") are the traces folder (``$LLENVS_TRACES_DIR``, else ``sample_traces``)
and each folder named in ``$LLENVS_TRACE_ROOTS`` (separated by ``os.pathsep``, ``:`` on Unix).
A path typed in the app or put in its URL is resolved first (``..`` and symlinks followed, by
``os.path.realpath``) and opened only when what it names lies inside one of them; anything
else is refused with a ``PermissionError`` that names the folders. Uploads and imports are
saved in the traces folder and a trace file's branches sidecar sits beside it, so both are in.

Example:
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> inside_roots(root / "runs.jsonl", [root]) == Path(os.path.realpath(root / "runs.jsonl"))
    True
    >>> inside_roots(root / ".." / "other.jsonl", [root])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    PermissionError: ...other.jsonl` is outside the traces folders; the app opens files only in: ...

"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "DEFAULT_DIR",
    "TRACES_DIR_ENV",
    "TRACE_ROOTS_ENV",
    "allowed_roots",
    "inside_roots",
    "resolve_trace_path",
    "traces_dir",
]

TRACES_DIR_ENV = "LLENVS_TRACES_DIR"
"""The environment variable that names the traces folder."""

DEFAULT_DIR = "sample_traces"
"""The traces folder when the environment variable is not set."""

TRACE_ROOTS_ENV = "LLENVS_TRACE_ROOTS"
"""The environment variable that names more folders the app may open files in."""


def traces_dir() -> Path:
    """The traces folder: ``$LLENVS_TRACES_DIR``, else ``./sample_traces``.

    Example:
        >>> os.environ[TRACES_DIR_ENV] = "/tmp/t"; str(traces_dir())
        '/tmp/t'
        >>> del os.environ[TRACES_DIR_ENV]; str(traces_dir())
        'sample_traces'

    """
    return Path(os.environ.get(TRACES_DIR_ENV) or DEFAULT_DIR)


def allowed_roots() -> tuple[Path, ...]:
    """The folders the app opens files in, resolved: the traces folder, then ``TRACE_ROOTS_ENV``'s.

    Example:
        >>> os.environ[TRACE_ROOTS_ENV] = os.pathsep.join(["/tmp/a", "", "/tmp/a/../b"])
        >>> [p.name for p in allowed_roots()][1:]
        ['a', 'b']
        >>> del os.environ[TRACE_ROOTS_ENV]

    """
    extra = (os.environ.get(TRACE_ROOTS_ENV) or "").split(os.pathsep)
    roots = [traces_dir(), *(Path(folder) for folder in extra if folder.strip())]
    return tuple(dict.fromkeys(Path(os.path.realpath(root)) for root in roots))


def inside_roots(path: str | os.PathLike[str], roots: Iterable[Path]) -> Path:
    """``path`` resolved (``..``, symlinks), when it lies inside one of ``roots``; else refused.

    The refusal, a ``PermissionError``, names the folders and says how to add one; it is the
    same whether or not the file exists, so it tells nothing about files outside them.

    Example:
        >>> inside_roots("/etc/passwd", [Path("/srv/traces")])
        Traceback (most recent call last):
        ...
        PermissionError: `/etc/passwd` is outside the traces folders; the app opens files only in: `/srv/traces`. Add a folder to LLENVS_TRACE_ROOTS (separated by ':') to open files there.

    """  # noqa: E501
    real = os.path.realpath(path)
    folders = [os.path.realpath(root) for root in roots]
    for folder in folders:
        try:
            if os.path.commonpath([real, folder]) == folder:
                return Path(real)
        except ValueError:  # different drives (Windows)
            continue
    shown = ", ".join(_quoted(folder) for folder in folders) or "(none)"
    raise PermissionError(
        f"{_quoted(os.fspath(path))} is outside the traces folders; the app opens files only "
        f"in: {shown}. Add a folder to {TRACE_ROOTS_ENV} (separated by {os.pathsep!r}) to open "
        "files there."
    )


def resolve_trace_path(path: str | os.PathLike[str]) -> Path:
    """``path`` resolved, when it lies inside ``allowed_roots()``; else a ``PermissionError``.

    Every place the app opens a file named by its user (the URL's ``file``, a text box) calls
    this first.

    Example:
        >>> os.environ[TRACES_DIR_ENV] = "/srv/traces"
        >>> str(resolve_trace_path("/srv/traces/sub/../runs.jsonl"))
        '/srv/traces/runs.jsonl'
        >>> resolve_trace_path("/srv/traces/../../home/me/.bashrc")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        PermissionError: `/srv/traces/../../home/me/.bashrc` is outside the traces folders; ...
        >>> del os.environ[TRACES_DIR_ENV]

    """
    return inside_roots(path, allowed_roots())


def _quoted(text: str, limit: int = 200) -> str:
    """``text`` as a markdown code span (backticks dropped, long text cut), shown as typed."""
    text = text.replace("`", "'").replace("\n", " ")
    return f"`{text if len(text) <= limit else text[: limit - 1] + '…'}`"
