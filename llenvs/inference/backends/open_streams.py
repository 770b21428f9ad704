"""``OpenStreams``: streamed responses kept open between calls, by what they continue.

Chat mode reads one streamed response per live stretch of segments. After a call stops at a
boundary, its stream is kept under (closed turns, assistant text read so far); the next call that
continues exactly that text takes it and reads on. At most ``limit`` streams are kept; the oldest
is closed when another is added (its trajectory then opens a new request).

Example:
    >>> class Stream:
    ...     closed = False
    ...     def close(self):
    ...         self.closed = True
    >>> streams = OpenStreams(limit=1)
    >>> first, second = Stream(), Stream()
    >>> streams.put(("q", "One. "), first)
    >>> streams.put(("q", "Uno. "), second)
    >>> first.closed, streams.take(("q", "Uno. ")) is second, streams.take(("q", "Uno. "))
    (True, True, None)

"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

__all__ = ["OpenStreams"]


class OpenStreams:
    """Open streams by key, oldest closed first beyond ``limit`` (thread-safe).

    Example:
        >>> OpenStreams(limit=0)
        Traceback (most recent call last):
        ...
        ValueError: limit must be >= 1, got 0

    """

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"limit must be >= 1, got {limit}")
        self.limit = limit
        self._streams: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._streams)

    def take(self, key: Hashable) -> Any | None:
        """The stream kept under ``key`` (removed from the store), or None."""
        with self._lock:
            return self._streams.pop(key, None)

    def put(self, key: Hashable, stream: Any) -> None:
        """Keep ``stream`` under ``key``; a stream it replaces, or the oldest, is closed."""
        with self._lock:
            evicted = [self._streams.pop(key)] if key in self._streams else []
            self._streams[key] = stream
            while len(self._streams) > self.limit:
                evicted.append(self._streams.popitem(last=False)[1])
        for old in evicted:
            old.close()

    def close_all(self) -> None:
        """Close every kept stream."""
        with self._lock:
            streams = list(self._streams.values())
            self._streams.clear()
        for stream in streams:
            stream.close()
