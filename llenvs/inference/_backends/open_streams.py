"""``OpenStreams``: streamed responses kept open between calls, by what they continue.

The openai backend reads one streamed response per live stretch of segments. After a call stops
at a boundary, its stream is kept under what it continues (the prompt and what was read so far);
the next call that continues exactly that takes it and reads on. A stream nobody takes still
costs the server (it goes on generating), so at most ``limit`` streams are kept, the oldest
closed when another is added, and a stream kept longer than ``idle_s`` seconds is closed at the
next ``put`` or ``take`` (its trajectory, if it comes back, opens a new request).

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
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

__all__ = ["OpenStreams"]


class OpenStreams:
    """Open streams by key, oldest closed first beyond ``limit`` or after ``idle_s`` (thread-safe).

    Example:
        >>> OpenStreams(limit=0)
        Traceback (most recent call last):
        ...
        ValueError: limit must be >= 1, got 0
        >>> class Stream:
        ...     closed = False
        ...     def close(self):
        ...         self.closed = True
        >>> now = [0.0]
        >>> streams = OpenStreams(limit=4, idle_s=30.0, clock=lambda: now[0])
        >>> left, kept = Stream(), Stream()
        >>> streams.put("left behind", left)
        >>> now[0] = 20.0
        >>> streams.put("read on", kept)
        >>> now[0] = 40.0
        >>> streams.take("read on") is kept, left.closed, len(streams)
        (True, True, 0)

    """

    def __init__(
        self,
        limit: int,
        idle_s: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if limit < 1:
            raise ValueError(f"limit must be >= 1, got {limit}")
        if idle_s <= 0:
            raise ValueError(f"idle_s must be > 0, got {idle_s}")
        self.limit = limit
        self.idle_s = idle_s
        self._clock = clock
        self._streams: OrderedDict[Hashable, tuple[Any, float]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._streams)

    def take(self, key: Hashable) -> Any | None:
        """The stream kept under ``key`` (removed from the store), or None."""
        with self._lock:
            kept = self._streams.pop(key, None)
            stale = self._stale()
        _close(stale)
        return None if kept is None else kept[0]

    def put(self, key: Hashable, stream: Any) -> None:
        """Keep ``stream`` under ``key``; a stream it replaces, the oldest, the idle are closed."""
        with self._lock:
            evicted = [self._streams.pop(key)[0]] if key in self._streams else []
            self._streams[key] = (stream, self._clock())
            while len(self._streams) > self.limit:
                evicted.append(self._streams.popitem(last=False)[1][0])
            evicted += self._stale()
        _close(evicted)

    def close_all(self) -> None:
        """Close every kept stream."""
        with self._lock:
            streams = [stream for stream, _ in self._streams.values()]
            self._streams.clear()
        _close(streams)

    def _stale(self) -> list[Any]:
        """Remove and return the streams kept longer than ``idle_s`` (oldest first; locked)."""
        deadline = self._clock() - self.idle_s
        stale = []
        while self._streams:
            key, (stream, kept_at) = next(iter(self._streams.items()))
            if kept_at > deadline:
                break
            del self._streams[key]
            stale.append(stream)
        return stale


def _close(streams: list[Any]) -> None:
    """Close each stream (outside the lock: closing may wait on the network)."""
    for stream in streams:
        stream.close()
