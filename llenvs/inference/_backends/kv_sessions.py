"""KV-cache sessions: what a local backend keeps between calls so segments cost what one call costs.

A ``KVSession`` is one trajectory's model state: the token ids whose keys and values are in its
cache, the token sampled last (not yet fed to the model: the next call feeds it, exactly as
one-shot decoding would), and the logits at the end of its first prefill. The backend stays
stateless from the caller's view: each request's full token ids are matched against the stored
sessions (``KVSessionStore.match``), the best one is cropped to the common prefix and only the
rest is fed. That one rule gives reuse between segments, rollback after ``ForceAction`` (the
re-tokenised text shares the prefix up to the boundary) and a new turn after feedback.

A session is reused only by a request that extends its whole first prompt: a new conversation is
always prefilled in one piece, so a segmented run and a one-shot run of the same prompt compute
exactly the same numbers (invariant 3). The store is a small LRU, so memory stays flat.

Calls in flight on other threads (the backend interleaves them between decode steps) hold the
sessions they decode: a claimed session (``claim``) is matched by no other request, lends no
tokens, and is never dropped by the LRU until it is released (``release``), so two calls never
share a cache. A store with nothing claimed behaves exactly as a plain LRU.

Example:
    >>> store = KVSessionStore(capacity=2)
    >>> first = store.add(KVSession(ids=[1, 2, 3], cache="cache-a", prompt_length=3))
    >>> store.match([1, 2, 3, 9]) == (first, 3)
    True
    >>> store.match([1, 2]) == (None, 0)  # shorter than the session's first prompt
    True

"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["KVSession", "KVSessionStore", "common_prefix_length"]


def common_prefix_length(a: Sequence[int], b: Sequence[int]) -> int:
    """How many leading items ``a`` and ``b`` share.

    Example:
        >>> common_prefix_length([1, 2, 3], [1, 2, 4, 5]), common_prefix_length([], [1])
        (2, 0)

    """
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count


@dataclass(eq=False)
class KVSession:
    """One trajectory's cached model state (mutable: the backend extends and crops it).

    Example:
        >>> session = KVSession(ids=[5, 6], cache=None, prompt_length=2, pending=[7])
        >>> session.tokens
        [5, 6, 7]

    """

    ids: list[int]
    """Token ids whose keys and values are in ``cache``, in order."""
    cache: Any
    """The model's key-value cache (a transformers ``DynamicCache``) for ``ids``."""
    prompt_length: int
    """Length of the first prompt, prefilled in one piece; only its extensions reuse this."""
    prompt_logits: Any = None
    """Next-token logits after the first prompt (reused when the same prompt comes again)."""
    pending: list[int] = field(default_factory=list)
    """Tokens sampled but not fed yet (the last token of the last call)."""
    generator: Any = None
    """The sampler's random generator, so a seeded stream goes on across segments."""
    exact: bool = True
    """Computed at batch size 1 only (a padded batch computes the same sums in other shapes)."""

    @property
    def tokens(self) -> list[int]:
        """All the session's tokens: the cached ones, then the pending ones."""
        return self.ids + self.pending


class KVSessionStore:
    """An LRU of ``KVSession`` objects, matched by longest common token prefix.

    Arguments:
        capacity: most sessions kept; the least recently used is dropped first.

    Example:
        >>> store = KVSessionStore(capacity=1)
        >>> _ = store.add(KVSession([1], None, 1)); _ = store.add(KVSession([2], None, 1))
        >>> [s.ids for s in store]
        [[2]]
        >>> KVSessionStore(capacity=0)
        Traceback (most recent call last):
        ...
        ValueError: capacity must be > 0, got 0

    """

    def __init__(self, capacity: int = 32) -> None:
        self._sessions: OrderedDict[int, KVSession] = OrderedDict()
        self._claimed: dict[int, object] = {}
        """Sessions held by calls in flight (``id()`` to the call)."""
        self.capacity = 0
        self.resize(capacity)

    def __iter__(self) -> Iterator[KVSession]:
        return iter(list(self._sessions.values()))

    def __len__(self) -> int:
        return len(self._sessions)

    def add(self, session: KVSession, call: object = None) -> KVSession:
        """Store ``session`` as the most recently used, dropping the oldest beyond capacity.

        With ``call``, the session is claimed for it (``claim``) before anything is dropped.
        """
        self._sessions[id(session)] = session
        self._sessions.move_to_end(id(session))
        if call is not None:
            self._claimed[id(session)] = call
        self._evict()
        return session

    def resize(self, capacity: int) -> None:
        """Keep at most ``capacity`` sessions from now on, dropping the least recently used.

        Example:
            >>> store = KVSessionStore(capacity=3)
            >>> for ids in ([1], [2], [3]):
            ...     _ = store.add(KVSession(ids, None, 1))
            >>> store.resize(1); [s.ids for s in store]
            [[3]]

        """
        if capacity <= 0:
            raise ValueError(f"capacity must be > 0, got {capacity}")
        self.capacity = capacity
        self._evict()

    def _evict(self) -> None:
        """Drop the least recently used unclaimed sessions beyond ``capacity``."""
        excess = len(self._sessions) - self.capacity
        if excess <= 0:
            return
        free = [key for key in self._sessions if key not in self._claimed][:excess]
        for key in free:
            del self._sessions[key]

    def claim(self, session: KVSession, call: object) -> None:
        """Hold ``session`` for ``call``: no match, no eviction, until ``release(call)``.

        Only ``call`` still sees its tokens (``sessions_with_head``).

        Example:
            >>> store, call = KVSessionStore(capacity=1), object()
            >>> held = store.add(KVSession([1, 2], None, 1)); store.claim(held, call)
            >>> store.match([1, 2, 3]), store.sessions_with_head([1], object())
            ((None, 0), [])
            >>> len(store.sessions_with_head([1], call))
            1
            >>> new = store.add(KVSession([7], None, 1), call); len(store)  # above capacity
            2
            >>> store.release(call); [s.ids for s in store]  # the LRU one goes now
            [[7]]

        """
        self._claimed[id(session)] = call

    def claimed_by(self, call: object) -> list[KVSession]:
        """The stored sessions ``call`` holds."""
        return [
            self._sessions[k] for k, o in self._claimed.items() if o is call and k in self._sessions
        ]

    def release(self, call: object) -> None:
        """End ``call``'s claims (it ended); the LRU bound applies again."""
        for key in [k for k, owner in self._claimed.items() if owner is call]:
            del self._claimed[key]
        self._evict()

    def discard(self, session: KVSession) -> None:
        """Forget ``session`` (nothing happens when it is not stored).

        Example:
            >>> store = KVSessionStore(); session = store.add(KVSession([1], None, 1))
            >>> store.discard(session); len(store)
            0

        """
        self._sessions.pop(id(session), None)
        self._claimed.pop(id(session), None)

    def match(self, ids: Sequence[int]) -> tuple[KVSession | None, int]:
        """The unclaimed session sharing the longest cached prefix with ``ids``, and that length.

        Only sessions whose whole first prompt is a prefix of ``ids`` qualify; claimed ones
        (by this batch or another call in flight) are skipped. The match is marked most
        recently used. ``(None, 0)`` when none qualifies.
        """
        best: KVSession | None = None
        best_length = 0
        for session in self._sessions.values():
            if id(session) in self._claimed or len(ids) < session.prompt_length:
                continue
            length = common_prefix_length(session.ids, ids)
            if length >= session.prompt_length and length >= best_length:
                best, best_length = session, length
        if best is not None:
            self._sessions.move_to_end(id(best))
        return best, best_length

    def sessions_with_head(self, head: Sequence[int], call: object = None) -> list[KVSession]:
        """Sessions whose tokens start with ``head``, most recently used first.

        Sessions another call than ``call`` holds are left out (their tokens are changing).

        Example:
            >>> store = KVSessionStore(); _ = store.add(KVSession([1, 2], None, 2, pending=[3]))
            >>> [s.tokens for s in store.sessions_with_head([1, 2, 3])]
            [[1, 2, 3]]

        """
        length = len(head)
        return [
            session
            for session in reversed(self._sessions.values())
            if self._claimed.get(id(session), call) is call
            and session.tokens[:length] == list(head)
        ]
