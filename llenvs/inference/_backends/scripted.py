"""The scripted backend: canned responses, served token by token like a real model.

Each new conversation (a new tuple of closed turns) is given its script once: when the backend
knows responses by prompt (``by_prompt``) and the conversation has one user turn whose text is
one of those prompts, that prompt's response, so a task gets its own response whatever order or
subset the tasks run in; otherwise the next of ``outputs``, in order. A request continues that
conversation's script from the character offset equal to the length of the open assistant turn,
so a trajectory generated segment by segment reads its script exactly once, and a forced segment
of another length shifts where the script resumes. After feedback (a new user turn) the
conversation is new and takes the next output. A conversation with no script left is a
``PermanentBackendError``: no retry can give it one.

Scripts are cut into pseudo-tokens (a word or a punctuation mark with its leading whitespace);
``max_tokens``, ``stop_at`` and stop sequences apply as on a real backend.

Example:
    >>> from llenvs.core._backend import GenerationRequest, Message, Prompt, SamplingParams
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
from collections.abc import Mapping, Sequence

from llenvs.core import (
    BackendCapabilities,
    FinishReason,
    Generation,
    GenerationRequest,
    Message,
)
from llenvs.core.errors import PermanentBackendError
from llenvs.inference._generate_until import GenerateUntil

__all__ = ["TOKEN_PATTERN", "ScriptedBackend", "make_backend"]

TOKEN_PATTERN = re.compile(r"\s*(?:\w+|[^\w\s])|\s+")
"""A pseudo-token: a word or one punctuation mark with its leading whitespace, or trailing
whitespace. The tokens of any text join back to it."""


class ScriptedBackend(GenerateUntil):
    """A real, small backend that plays back canned outputs.

    Arguments:
        outputs: one response per conversation, used in order.
        by_prompt: responses by prompt: a conversation whose only user turn is one of these
            texts takes its response (and uses none of ``outputs``).

    Example:
        >>> ScriptedBackend(["a"]).name
        'scripted'
        >>> backend = ScriptedBackend(by_prompt={"2 + 2?": "4", "3 + 3?": "6"})
        >>> backend.script_for((Message("user", "3 + 3?"),))
        '6'

    """

    name = "scripted"
    capabilities = BackendCapabilities()
    """Nothing optional: its ids are no tokenizer's, and it serves a batch in one call."""

    def __init__(
        self, outputs: Sequence[str] = (), *, by_prompt: Mapping[str, str] | None = None
    ) -> None:
        if isinstance(outputs, str):
            raise TypeError("outputs must be a sequence of strings, not one string")
        self.outputs: tuple[str, ...] = tuple(outputs)
        self.by_prompt: dict[str, str] = dict(by_prompt or {})
        """Responses by the text of a conversation's only user turn."""
        texts = (*self.outputs, *self.by_prompt, *self.by_prompt.values())
        if not all(isinstance(o, str) for o in texts):
            raise TypeError("every output and prompt must be a string")
        self.requests: list[GenerationRequest] = []
        """Every request received, in order (for tests to inspect)."""
        self._scripts: dict[tuple[Message, ...], str] = {}
        self._next_output = 0
        self._vocabulary: dict[str, int] = {}

    def script_for(self, messages: tuple[Message, ...]) -> str:
        """The script of a conversation, assigning it one if it is new (see the module).

        Example:
            >>> ScriptedBackend().script_for((Message("user", "hi"),))
            Traceback (most recent call last):
            ...
            llenvs.core.errors.PermanentBackendError: the scripted backend has no response left ...

        """
        if messages not in self._scripts:
            self._scripts[messages] = self._new_script(messages)
        return self._scripts[messages]

    def _new_script(self, messages: tuple[Message, ...]) -> str:
        users = [m.content for m in messages if m.role == "user"]
        if len(users) == 1 and users[0] in self.by_prompt:
            return self.by_prompt[users[0]]
        if self._next_output < len(self.outputs):
            self._next_output += 1
            return self.outputs[self._next_output - 1]
        prompt = users[-1] if users else ""
        shown = prompt if len(prompt) <= 60 else prompt[:57] + "..."
        known = (
            f", and none of its {len(self.by_prompt)} prompts is this one" if self.by_prompt else ""
        )
        raise PermanentBackendError(
            f"the scripted backend has no response left for the conversation whose last user "
            f"turn is {shown!r}: its {len(self.outputs)} output(s) are all assigned{known}; "
            "give one response per conversation (feedback opens a new one)"
        )

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


def make_backend(
    model: str | None = None,
    *,
    outputs: Sequence[str] = (),
    by_prompt: Mapping[str, str] | None = None,
) -> ScriptedBackend:
    """The registry's factory: ``get_backend("scripted", outputs=[...], by_prompt={...})``.

    Example:
        >>> make_backend(outputs=["x"]).outputs
        ('x',)

    """
    if model is not None:
        raise ValueError(f"the scripted backend takes no model name, got {model!r}")
    return ScriptedBackend(outputs, by_prompt=by_prompt)
