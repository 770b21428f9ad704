"""A lock shared by calls by their weight: the one that has held it least, weighed, goes next.

The transformers backend takes its lock once per decode step, so calls from several threads
interleave. Taking turns step by step is not fair by itself: a 64-row batch step costs ten times
a one-row step, so strict alternation would give a short intervention a tenth of the model.
``TurnLock`` shares the model's time instead: each call (``call``) keeps a clock of the seconds
it has held the lock, times its ``weight``, and when the lock comes free it goes to the call
whose clock is lowest (the earlier asker on a tie). The transformers backend weighs a call by
its rows: a one-row call (a person waiting for an intervention) runs at nearly its solo speed
beside a 64-row batch of rollouts, which takes the time it leaves; with equal weights two calls
would get half the model each, and the person would wait twice as long. A call that starts sets
its clock to the lowest clock of the calls already there, so it neither waits behind their past
nor brings credit from its own: two calls of equal weight then run at about half speed each,
whatever their step sizes. A call between two of its steps still counts as asking (it is back
within microseconds), so the lock is never handed to a call that merely woke up first. The lock
is reentrant for its holder.

Example:
    >>> lock = TurnLock()
    >>> with lock.call(), lock.turn():
    ...     with lock.turn():  # the holder may take it again
    ...         lock.waiting()
    0

"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["TurnLock"]


@dataclass
class _Caller:
    """One thread's call: its clock (seconds held) and when it asked (for ties)."""

    clock: float
    order: int
    weight: float = 1.0
    """How fast its clock runs per second held (the transformers backend: its rows)."""
    calls: int = 0
    """Nested ``call``/``turn`` scopes that keep it asking."""


class TurnLock:
    """A reentrant lock shared by calls in proportion to time held (see the module).

    Arguments:
        clock: where the time held is read (seconds; tests give their own).

    Example:
        >>> lock = TurnLock()
        >>> with lock.turn():
        ...     lock.waiting()
        0

    """

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self._time = clock
        self._guard = threading.Condition(threading.Lock())
        self._callers: dict[int, _Caller] = {}
        """Threads in a call (holding, waiting, or between two steps)."""
        self._owner: int | None = None
        self._depth = 0
        self._waiting = 0
        self._orders = itertools.count()

    @contextmanager
    def call(self, weight: float = 1.0) -> Iterator[None]:
        """One call of the calling thread: its clock counts, between its steps too.

        Its clock runs ``weight`` times as fast as the time it holds the lock (a call of
        weight 64 yields to one of weight 1 until that one has held it 1/64 as long).
        """
        if not weight > 0:
            raise ValueError(f"a call's weight must be positive, got {weight!r}")
        me = threading.get_ident()
        with self._guard:
            self._join(me, weight)
        try:
            yield
        finally:
            with self._guard:
                self._leave(me)

    @contextmanager
    def turn(self) -> Iterator[None]:
        """Hold the lock for the ``with`` block, when this call's clock is the lowest."""
        me = threading.get_ident()
        with self._guard:
            self._join(me)
            if self._owner == me:
                self._depth += 1
            else:
                self._waiting += 1
                while self._owner is not None or self._next() != me:
                    self._guard.wait()
                self._waiting -= 1
                self._owner, self._depth = me, 1
        started = self._time()
        try:
            yield
        finally:
            with self._guard:
                self._depth -= 1
                if self._depth == 0:
                    caller = self._callers[me]
                    caller.clock += (self._time() - started) * caller.weight
                    self._owner = None
                self._leave(me)
                self._guard.notify_all()

    def waiting(self) -> int:
        """How many threads wait for their turn now."""
        with self._guard:
            return self._waiting

    def _join(self, me: int, weight: float = 1.0) -> None:
        """``me`` asks (guard held): a new call starts at the lowest clock of those there."""
        caller = self._callers.get(me)
        if caller is None:
            clock = min((c.clock for c in self._callers.values()), default=0.0)
            caller = self._callers[me] = _Caller(clock, next(self._orders), weight)
        caller.calls += 1

    def _leave(self, me: int) -> None:
        """``me``'s scope ended (guard held); at its last, its call ends."""
        caller = self._callers[me]
        caller.calls -= 1
        if caller.calls == 0:
            del self._callers[me]
            self._guard.notify_all()

    def _next(self) -> int:
        """The caller whose turn it is: the lowest clock, then the earliest to ask."""
        return min(self._callers, key=lambda t: (self._callers[t].clock, self._callers[t].order))
