"""``generate_until``: the guide's manual loop on any backend, one segment per call.

``backend.generate_until(text, stop_at=segmenter.find_boundary)`` renders ``text`` as one user
turn and generates until ``stop_at`` decides a boundary, returning exactly one segment. It keeps
the overshoot (text generated past the boundary): when the next call's text is the last text plus
the segment it returned, it continues the same assistant turn from there, so the segments of a
loop join to what one call would have generated. A text that extends the turn's prompt in another
way (the caller forced its own segment) continues the turn from that text with the overshoot
dropped; any other text starts a new turn.

Example:
    >>> from llenvs.core.segmenters import SentenceSegmenter
    >>> from llenvs.inference._backends.scripted import ScriptedBackend
    >>> backend = ScriptedBackend(["One. Two. Three."])
    >>> find = SentenceSegmenter().find_boundary
    >>> first = backend.generate_until("Count.", stop_at=find)
    >>> second = backend.generate_until("Count." + first, stop_at=find)
    >>> third = backend.generate_until("Count." + first + second, stop_at=find)
    >>> first, second, third
    ('One. ', 'Two. ', 'Three.')

"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

from llenvs.core import (
    DEFAULT_MAX_TOKENS,
    BoundaryFn,
    Generation,
    GenerationRequest,
    Message,
    Prompt,
    SamplingParams,
)

__all__ = ["GenerateUntil"]


@dataclass(frozen=True)
class _Turn:
    """What the last ``generate_until`` call left: where a matching next call resumes."""

    prompt: str
    """The user text of the turn."""
    assistant: str
    """The assistant text returned so far in the turn."""
    overshoot: str
    """Text generated past the last boundary, not yet returned."""

    @property
    def expected(self) -> str:
        """The text a caller sends to continue exactly: the prompt and what was returned."""
        return self.prompt + self.assistant


class GenerateUntil:
    """Adds ``generate_until`` to a backend that has ``generate(requests)``.

    Example:
        >>> from llenvs.inference._backends.scripted import ScriptedBackend
        >>> isinstance(ScriptedBackend(["a"]), GenerateUntil)
        True

    """

    _turns_guard = threading.Lock()

    @property
    def _turn(self) -> _Turn | None:
        """The calling thread's last turn (each thread continues its own conversation)."""
        return getattr(self._thread_turns(), "turn", None)

    @_turn.setter
    def _turn(self, turn: _Turn | None) -> None:
        self._thread_turns().turn = turn

    def _thread_turns(self) -> threading.local:
        with self._turns_guard:
            turns = self.__dict__.get("_turns")
            if turns is None:
                turns = self.__dict__["_turns"] = threading.local()
        return turns

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Generation]:
        """One generation per request (the backend's own method)."""
        raise NotImplementedError

    def generate_until(
        self,
        text: str,
        stop_at: BoundaryFn,
        params: SamplingParams | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> str:
        """Generate after ``text`` until ``stop_at`` decides a boundary; return one segment.

        Returns the rest of the turn when generation ends first (``""`` once it has ended), and
        at most ``max_tokens`` tokens of new text per call.

        Example:
            >>> from llenvs.inference._backends.scripted import ScriptedBackend
            >>> backend = ScriptedBackend(["Done."])
            >>> backend.generate_until("q", stop_at=lambda t: None), backend.generate_until(
            ...     "qDone.", stop_at=lambda t: None)
            ('Done.', '')

        """
        params = params or SamplingParams()
        turn = self._turn
        if turn is not None and text == turn.expected:
            prompt, assistant, buffer = turn.prompt, turn.assistant, turn.overshoot
        elif turn is not None and text.startswith(turn.prompt):
            prompt, assistant, buffer = turn.prompt, text[len(turn.prompt) :], ""
        else:
            prompt, assistant, buffer = text, "", ""
        boundary = stop_at(buffer) if buffer else None
        if boundary is None:
            request = GenerationRequest(
                Prompt((Message("user", prompt),), continuation=assistant + buffer),
                params,
                max_tokens,
                stop_at=lambda generated: stop_at(buffer + generated),
            )
            buffer += self.generate([request])[0].text
            boundary = stop_at(buffer)
        end = len(buffer) if boundary is None else boundary
        segment, overshoot = buffer[:end], buffer[end:]
        self._turn = _Turn(prompt, assistant + segment, overshoot)
        return segment
