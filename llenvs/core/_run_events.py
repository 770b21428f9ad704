"""How a run is watched and stopped: typed events, one observer protocol, one stop token.

Every long call of llenvs takes both in one ``RunControl`` (``llenvs.core``):

- ``observer``: any callable taking one ``RunEvent`` (a function, a bound method, a list's
  ``append``). Events are frozen dataclasses, told apart by their class (``match``), never by a
  string; each layer defines the events it emits (steps and trajectories in
  ``llenvs.evaluation.episodes``, rollouts and rounds in ``llenvs.analysis.sampling``), on
  the base class here. An observer that raises ends the run with that error: stopping is the
  token's job, not an exception's.
- ``stop``: a ``StopToken``. Once ``stop()`` is called (from any thread), the run ends at its
  next check (between segments, or after the next token for the calls that cut generation), keeps
  what finished, and emits ``Stopped``.

Example:
    >>> seen: list[RunEvent] = []
    >>> observe = fan_out(seen.append, None)
    >>> token = StopToken()
    >>> observe(TokenGenerated()); token.stop(); observe(Stopped(kept=3))
    >>> [event.kind for event in seen], token.stopped
    (['token', 'stopped'], True)

"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

__all__ = ["RunEvent", "RunObserver", "StopToken", "Stopped", "TokenGenerated", "fan_out"]


@dataclass(frozen=True)
class RunEvent:
    """Something that happened in a run; subclasses say what (``kind`` names it in logs).

    Example:
        >>> Stopped(kept=0).record()
        {'kept': 0}

    """

    kind: ClassVar[str] = "event"
    """The event's name in a JSON log (``event_record``)."""

    def record(self) -> dict[str, Any]:
        """The event's fields as JSON values (subclasses with richer fields override it)."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}


class RunObserver(Protocol):
    """Receives a run's events, in order, on the thread that runs it.

    Example:
        >>> def show(event: RunEvent) -> None:
        ...     print(event.kind)
        >>> observer: RunObserver = show
        >>> observer(TokenGenerated())
        token

    """

    def __call__(self, event: RunEvent, /) -> None:
        """Take one event."""
        ...


class StopToken:
    """Asks a run to end early; thread-safe, and once stopped it stays stopped.

    Example:
        >>> token = StopToken()
        >>> token.stopped
        False
        >>> token.stop(); token.stop(); token.stopped
        True

    """

    def __init__(self) -> None:
        self._event = threading.Event()

    @property
    def stopped(self) -> bool:
        """Whether ``stop`` was called."""
        return self._event.is_set()

    def stop(self) -> None:
        """Ask the run to end at its next check; what it finished is kept."""
        self._event.set()

    def __repr__(self) -> str:
        return f"StopToken(stopped={self.stopped})"


@dataclass(frozen=True)
class TokenGenerated(RunEvent):
    """The backend generated one token (progress inside a batch call that returns at its end).

    Example:
        >>> TokenGenerated().kind
        'token'

    """

    kind: ClassVar[str] = "token"


@dataclass(frozen=True)
class Stopped(RunEvent):
    """The run ended early because its ``StopToken`` was stopped (the last event it emits).

    Example:
        >>> Stopped(kept=2).kept
        2

    """

    kind: ClassVar[str] = "stopped"
    kept: int
    """What finished and was kept: trajectories, branches or rollouts, as the call counts."""


def fan_out(*observers: RunObserver | None) -> RunObserver:
    """One observer that hands every event to each of ``observers`` in turn (None skipped).

    Example:
        >>> first, second = [], []
        >>> fan_out(first.append, second.append)(TokenGenerated())
        >>> len(first), len(second)
        (1, 1)

    """
    kept = tuple(observer for observer in observers if observer is not None)

    def observe(event: RunEvent) -> None:
        for observer in kept:
            observer(event)

    return observe
