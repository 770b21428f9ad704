"""The scripted backend: canned responses, served token by token like a real model.

Each new conversation (a new tuple of closed turns) takes the next output in order. A request
continues that conversation's script from the character offset equal to the length of the open
assistant turn, so a trajectory generated segment by segment reads its script exactly once, and
a forced segment of another length shifts where the script resumes. After feedback (a new user
turn) the conversation is new and takes the next output.

Scripts are cut into pseudo-tokens (a word or a punctuation mark with its leading whitespace);
``max_tokens``, ``stop_at`` and stop sequences apply as on a real backend.

Example:
    >>> from llenvs.core.backend import GenerationRequest, Message, Prompt, SamplingParams
    >>> backend = ScriptedBackend(["One. Two. Three."])
    >>> prompt = Prompt((Message("user", "count"),))
    >>> first = backend.generate([GenerationRequest(prompt, SamplingParams(), max_tokens=3)])[0]
    >>> first.text, first.finish_reason.value
    ('One. Two', 'length')
    >>> more = Prompt(prompt.messages, continuation=first.text)
    >>> backend.generate([GenerationRequest(more, SamplingParams(), max_tokens=50)])[0].text
    '. Three.'

"""

from __future__ import annotations

import re
from collections.abc import Sequence

from llenvs.core.backend import (
    FinishReason,
    Generation,
    GenerationRequest,
    Message,
)
from llenvs.core.errors import BackendError
from llenvs.inference.generate_until import GenerateUntil

__all__ = ["TOKEN_PATTERN", "ScriptedBackend", "make_backend"]

TOKEN_PATTERN = re.compile(r"\s*(?:\w+|[^\w\s])|\s+")
"""A pseudo-token: a word or one punctuation mark with its leading whitespace, or trailing
whitespace. The tokens of any text join back to it."""


class ScriptedBackend(GenerateUntil):
    """A real, small backend that plays back canned outputs.

    Arguments:
        outputs: one response per conversation, used in order.

    Example:
        >>> ScriptedBackend(["a"]).name
        'scripted'

    """

    name = "scripted"

    def __init__(self, outputs: Sequence[str]) -> None:
        if isinstance(outputs, str):
            raise TypeError("outputs must be a sequence of strings, not one string")
        self.outputs: tuple[str, ...] = tuple(outputs)
        if not all(isinstance(o, str) for o in self.outputs):
            raise TypeError("every output must be a string")
        self.requests: list[GenerationRequest] = []
        """Every request received, in order (for tests to inspect)."""
        self._conversations: dict[tuple[Message, ...], int] = {}
        self._vocabulary: dict[str, int] = {}

    def script_for(self, messages: tuple[Message, ...]) -> str:
        """The output assigned to a conversation, assigning the next one if it is new."""
        if messages not in self._conversations:
            if len(self._conversations) == len(self.outputs):
                raise BackendError(
                    f"the scripted backend has {len(self.outputs)} output(s) and every one is "
                    "already assigned to a conversation; give one output per conversation "
                    "(feedback opens a new one)"
                )
            self._conversations[messages] = len(self._conversations)
        return self.outputs[self._conversations[messages]]

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Generation]:
        """Play back each request's script from where its open assistant turn ends."""
        return [self._generate_one(request) for request in requests]

    def _generate_one(self, request: GenerationRequest) -> Generation:
        self.requests.append(request)
        script = self.script_for(request.prompt.messages)
        remaining = script[len(request.prompt.continuation) :]
        text, ids = "", list[int]()
        reason = FinishReason.STOP
        for match in TOKEN_PATTERN.finditer(remaining):
            if len(ids) == request.max_tokens:
                reason = FinishReason.LENGTH
                break
            token = match.group()
            text += token
            ids.append(self._vocabulary.setdefault(token, len(self._vocabulary)))
            stop = _first_stop(text, request.params.stop)
            if stop is not None:
                text, reason = text[:stop], FinishReason.STOP
                break
            if request.stop_at is not None and request.stop_at(text) is not None:
                reason = FinishReason.BOUNDARY
                break
        logprobs = tuple(0.0 for _ in ids) if request.params.logprobs else None
        return Generation(text, reason, tuple(ids), logprobs)


def _first_stop(text: str, stops: tuple[str, ...]) -> int | None:
    """End of the earliest stop sequence in ``text``, or None."""
    ends = [text.index(s) + len(s) for s in stops if s in text]
    return min(ends) if ends else None


def make_backend(model: str | None = None, *, outputs: Sequence[str]) -> ScriptedBackend:
    """The registry's factory: ``get_backend("scripted", outputs=[...])``.

    Example:
        >>> make_backend(outputs=["x"]).outputs
        ('x',)

    """
    if model is not None:
        raise ValueError(f"the scripted backend takes no model name, got {model!r}")
    return ScriptedBackend(outputs)
