"""``StoppableBackend``: a backend whose calls end at the next token once a stop is asked for.

Every backend reads a request's ``stop_at`` after each token it generates (the transformers
backend after each decode step, the openai one after each streamed token, the scripted one after
each pseudo-token). This wrapper gives every request a ``stop_at`` that also reads a
``StopToken``: once it is stopped, every call in progress ends after the token being generated
(one decode step of a batch), and the call raises ``RolloutsStopped`` instead of handing back
generations that were cut short (they are not rollouts: a cut continuation is not a sample of
the value). Each token read is told to the observer (``TokenGenerated``), so a caller can show
progress inside a batch call whose rollouts all come back at its end.

Example:
    >>> from llenvs.core._backend import GenerationRequest, Message, Prompt, SamplingParams
    >>> from llenvs.core._run_events import StopToken
    >>> asked, token = [], StopToken()
    >>> def count(event):
    ...     asked.append(event)
    ...     if len(asked) == 2:
    ...         token.stop()
    >>> backend = StoppableBackend(get_backend("scripted", outputs=["One two three four."]),
    ...                            token, count)
    >>> request = GenerationRequest(Prompt((Message("user", "count"),)), SamplingParams(), 50)
    >>> backend.generate([request])
    Traceback (most recent call last):
    ...
    llenvs.analysis.sampling._stoppable_backend.RolloutsStopped: stopped after 2 tokens of this call
    >>> len(asked), backend.name
    (2, 'scripted')

"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace

from llenvs.core import (
    BackendCapabilities,
    BoundaryFn,
    Generation,
    GenerationRequest,
    ModelBackend,
    RunObserver,
    StopToken,
    TokenGenerated,
)

__all__ = ["RolloutsStopped", "StoppableBackend"]

_TOKEN = TokenGenerated()


class RolloutsStopped(Exception):
    """A call was cut short by a stop: its generations are not handed back."""


class StoppableBackend:
    """``backend``, its calls cut at the next token once ``stop`` is stopped.

    Arguments:
        backend: the backend that generates.
        stop: read after every generated token.
        observer: gets a ``TokenGenerated`` after every generated token (from the thread that
            calls the backend), or None.

    Its ``capabilities`` are the backend's own, so the episode driver serves it as it serves
    ``backend``.

    """

    def __init__(
        self,
        backend: ModelBackend,
        stop: StopToken,
        observer: RunObserver | None = None,
    ) -> None:
        self.backend = backend
        """The backend that generates."""
        self._stop = stop
        self._observer = observer
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        """The backend's name (rollouts are stored under it)."""
        return self.backend.name

    @property
    def capabilities(self) -> BackendCapabilities:
        """The backend's capabilities (concurrency, tokenizer, ...): it generates for it."""
        return self.backend.capabilities

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Generation]:
        """The backend's generations, or ``RolloutsStopped`` when a stop cut one short."""
        tokens = [0]
        cut = threading.Event()

        def watch(boundary: BoundaryFn | None) -> BoundaryFn:
            def stop_at(text: str) -> int | None:
                with self._lock:
                    tokens[0] += 1
                if self._observer is not None:
                    self._observer(_TOKEN)
                if self._stop.stopped:
                    cut.set()
                    return len(text)
                return None if boundary is None else boundary(text)

            return stop_at

        generations = self.backend.generate(
            [replace(request, stop_at=watch(request.stop_at)) for request in requests]
        )
        if cut.is_set():
            raise RolloutsStopped(f"stopped after {tokens[0]} tokens of this call")
        return generations
