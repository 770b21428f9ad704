"""``StoppableBackend``: a backend whose calls end at the next token once a stop is asked for.

Every backend reads a request's ``stop_at`` after each token it generates (the transformers
backend after each decode step, the openai one after each streamed token, the scripted one after
each pseudo-token). This wrapper gives every request a ``stop_at`` that also asks
``should_stop``: once it says True, every call in progress ends after the token being generated
(one decode step of a batch), and the call raises ``RolloutsStopped`` instead of handing back
generations that were cut short (they are not rollouts: a cut continuation is not a sample of
the value). Each token read is counted (``on_token``), so a caller can show progress inside a
batch call whose rollouts all come back at its end.

Example:
    >>> from llenvs.core.backend import GenerationRequest, Message, Prompt, SamplingParams
    >>> from llenvs.inference import get_backend
    >>> asked = []
    >>> backend = StoppableBackend(get_backend("scripted", outputs=["One two three four."]),
    ...                            should_stop=lambda: len(asked) >= 2,
    ...                            on_token=lambda: asked.append(1))
    >>> request = GenerationRequest(Prompt((Message("user", "count"),)), SamplingParams(), 50)
    >>> backend.generate([request])
    Traceback (most recent call last):
    ...
    llenvs.analysis.stoppable_backend.RolloutsStopped: stopped after 2 tokens of this call
    >>> len(asked), backend.name
    (2, 'scripted')

"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace

from llenvs.core.backend import (
    BackendCapabilities,
    BoundaryFn,
    Generation,
    GenerationRequest,
    ModelBackend,
)

__all__ = ["RolloutsStopped", "StoppableBackend", "TokenObserver"]

TokenObserver = Callable[[], None]
"""Called once for each token a backend generates (from the thread that calls the backend)."""


class RolloutsStopped(Exception):
    """A call was cut short by a stop: its generations are not handed back."""


class StoppableBackend:
    """``backend``, its calls cut at the next token once ``should_stop()`` says True.

    Arguments:
        backend: the backend that generates.
        should_stop: asked after every generated token.
        on_token: called after every generated token (for progress), or None.

    Its ``capabilities`` are the backend's own, so the episode driver serves it as it serves
    ``backend``.

    """

    def __init__(
        self,
        backend: ModelBackend,
        should_stop: Callable[[], bool],
        on_token: TokenObserver | None = None,
    ) -> None:
        self.backend = backend
        """The backend that generates."""
        self._should_stop = should_stop
        self._on_token = on_token
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
                if self._on_token is not None:
                    self._on_token()
                if self._should_stop():
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
