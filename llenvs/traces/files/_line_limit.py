r"""The longest line a JSONL reader reads, and the lines of a file read within it.

Every reader of trace files and sidecars goes through ``limited_lines``. Under a limit, a line
longer than it is passed over unread: at most the limit is held in memory, the rest is read in
chunks and dropped. The library reads any line unless told a limit; the workbench, a server,
reads within ``max_line_bytes()`` (64 MB, ``$LLENVS_MAX_LINE_MB`` sets another).

Example:
    >>> import io
    >>> [(n, offset, raw) for n, offset, raw, _ in limited_lines(io.BytesIO(b"ab\nxyzzy\nc"), 3)]
    [(1, 0, b'ab\n'), (2, 3, None), (3, 9, b'c')]

"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from typing import IO

__all__ = [
    "DEFAULT_MAX_LINE_MB",
    "MAX_LINE_ENV",
    "limited_lines",
    "max_line_bytes",
    "too_long",
]

MAX_LINE_ENV = "LLENVS_MAX_LINE_MB"
"""The environment variable that sets the longest line read, in MB (2**20 bytes)."""

DEFAULT_MAX_LINE_MB = 64
"""The longest line read, in MB, when the environment variable is not set."""

MB = 2**20
"""Bytes in a megabyte, as Streamlit counts them for uploads."""

CHUNK = MB
"""How much of an over-long line is read at a time while passing over it."""


def max_line_bytes() -> int:
    """The longest line read, in bytes: ``$LLENVS_MAX_LINE_MB`` megabytes, else 64 MB.

    Example:
        >>> max_line_bytes() == 64 * 2**20
        True
        >>> os.environ[MAX_LINE_ENV] = "0.5"; max_line_bytes()
        524288
        >>> os.environ[MAX_LINE_ENV] = "lots"; max_line_bytes()
        Traceback (most recent call last):
        ...
        ValueError: LLENVS_MAX_LINE_MB must be a number of megabytes > 0, got 'lots'
        >>> del os.environ[MAX_LINE_ENV]

    """
    text = os.environ.get(MAX_LINE_ENV) or str(DEFAULT_MAX_LINE_MB)
    try:
        megabytes = float(text)
    except ValueError:
        megabytes = math.nan
    if not megabytes > 0 or math.isinf(megabytes):
        raise ValueError(f"{MAX_LINE_ENV} must be a number of megabytes > 0, got {text!r}")
    return max(int(megabytes * MB), 1)


def limited_lines(
    handle: IO[bytes], limit: int | None, *, first: int = 1
) -> Iterator[tuple[int, int, bytes | None, int]]:
    r"""``(number, offset, raw line or None when longer than limit, size)`` for each line.

    Lines are read from where ``handle`` stands, numbered from ``first``. At most
    ``limit + 1`` bytes of a line are held; the rest of a longer one is read in chunks and
    dropped, up to its newline. ``limit`` None: every line is read whole.

    Example:
        >>> import io
        >>> handle = io.BytesIO(b"skip\nkeep\n"); _ = handle.seek(5)
        >>> list(limited_lines(handle, 10, first=2))
        [(2, 5, b'keep\n', 5)]

    """
    number, offset = first - 1, handle.tell()
    while raw := handle.readline(-1 if limit is None else limit + 1):
        number += 1
        size = len(raw)
        if limit is None or size <= limit:
            yield number, offset, raw, size
        else:
            while not raw.endswith(b"\n") and (raw := handle.readline(CHUNK)):
                size += len(raw)
            yield number, offset, None, size
        offset += size


def too_long(size: int, limit: int) -> str:
    """Why a line of ``size`` bytes was not read (for a skipped line's reason).

    Example:
        >>> too_long(3_000_000, 2**20)
        '3,000,000 bytes, longer than the line limit of 1 MB (LLENVS_MAX_LINE_MB sets it, in MB); not read'

    """  # noqa: E501
    return (
        f"{size:,} bytes, longer than the line limit of {_amount(limit)} "
        f"({MAX_LINE_ENV} sets it, in MB); not read"
    )


def _amount(size: int) -> str:
    """``size`` bytes said in MB when it is a whole number of them, else in bytes."""
    return f"{size // MB} MB" if size % MB == 0 else f"{size:,} bytes"
