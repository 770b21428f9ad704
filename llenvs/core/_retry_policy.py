"""``RetryPolicy``: how often and how patiently a failing backend call is tried again.

Example:
    >>> from llenvs.core.errors import BackendError, PermanentBackendError
    >>> calls = []
    >>> def flaky():
    ...     calls.append(1)
    ...     if len(calls) < 3:
    ...         raise BackendError("server busy")
    ...     return "ok"
    >>> RetryPolicy(attempts=3, sleep=lambda seconds: None).call(flaky), len(calls)
    ('ok', 3)

"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from llenvs.core.errors import BackendError, PermanentBackendError

__all__ = ["NO_RETRY", "RetryPolicy"]

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """Try a call up to ``attempts`` times, waiting ``backoff_s * multiplier**k`` in between.

    Only the exception types in ``retry_on`` are retried (backend errors and OS-level errors
    such as refused connections and timeouts), except those in ``never_retry`` (a
    ``PermanentBackendError``: bad input, a script with nothing left), which another try cannot
    fix; anything else is a bug. Both propagate at once. ``sleep`` is injectable so tests retry
    instantly.

    Example:
        >>> RetryPolicy().delays()
        (1.0, 2.0)
        >>> def out_of_script():
        ...     raise PermanentBackendError("no response left")
        >>> RetryPolicy(sleep=print).call(out_of_script)  # no wait is printed
        Traceback (most recent call last):
        ...
        llenvs.core.errors.PermanentBackendError: no response left
        >>> RetryPolicy(attempts=0)
        Traceback (most recent call last):
        ...
        ValueError: attempts must be >= 1, got 0

    """

    attempts: int = 3
    """Most tries of one call, the first included."""
    backoff_s: float = 1.0
    """Seconds to wait before the second try."""
    multiplier: float = 2.0
    """Each later wait is the previous one times this."""
    retry_on: tuple[type[BaseException], ...] = (BackendError, OSError)
    """Exception types worth another try."""
    never_retry: tuple[type[BaseException], ...] = (PermanentBackendError,)
    """Exception types raised at once even when they are also in ``retry_on``."""
    sleep: Callable[[float], None] = time.sleep
    """How to wait (tests pass a function that returns at once)."""
    jitter: float = 0.0
    """Spread of each wait, a fraction: it is drawn from ``[d * (1 - jitter), d * (1 + jitter)]``
    so that many clients that failed together do not retry together (0: exactly ``d``)."""

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError(f"attempts must be >= 1, got {self.attempts}")
        if self.backoff_s < 0:
            raise ValueError(f"backoff_s must be >= 0, got {self.backoff_s}")
        if self.multiplier < 1:
            raise ValueError(f"multiplier must be >= 1, got {self.multiplier}")
        if not 0 <= self.jitter <= 1:
            raise ValueError(f"jitter must be in [0, 1], got {self.jitter}")

    def delays(self) -> tuple[float, ...]:
        """The waits between tries, in order (one fewer than ``attempts``).

        Example:
            >>> RetryPolicy(attempts=4, backoff_s=0.5, multiplier=3).delays()
            (0.5, 1.5, 4.5)

        """
        return tuple(self.backoff_s * self.multiplier**k for k in range(self.attempts - 1))

    def call(self, function: Callable[[], T]) -> T:
        """``function()``, tried again after each retryable failure; the last error is raised.

        Example:
            >>> RetryPolicy(attempts=2, sleep=lambda s: None).call(lambda: 7)
            7
            >>> waits = []
            >>> def busy():
            ...     raise BackendError("429")
            >>> RetryPolicy(jitter=0.5, sleep=waits.append).call(busy)
            Traceback (most recent call last):
            ...
            llenvs.core.errors.BackendError: 429
            >>> 0.5 <= waits[0] <= 1.5 and 1.0 <= waits[1] <= 3.0
            True

        """
        for delay in self.delays():
            try:
                return function()
            except self.never_retry:
                raise
            except self.retry_on:
                spread = 1 + self.jitter * (2 * random.random() - 1) if self.jitter else 1.0
                self.sleep(delay * spread)
        return function()


NO_RETRY = RetryPolicy(attempts=1)
"""One try, no waiting: a failure is final at once."""
