"""``GenerationReader``: what a streamed response has produced so far, and whether to stop reading.

An HTTP backend reads a response as it streams and applies the request's limits on the client
side, as the transformers backend does token by token: a stop sequence ending in the new text
(kept, the text cut after it: ``STOP``), then ``stop_at`` (``BOUNDARY``, overshoot kept), then
the call's ``max_tokens`` (``LENGTH``); an end-of-turn token gives ``STOP`` and is not returned.
Tokens are given one at a time (``add_token``: the server returned ids) or as text pieces with
their ids (``add_text``: the server returned text only).

Example:
    >>> from llenvs.core._backend import GenerationRequest, Message, Prompt, SamplingParams
    >>> class Chars:  # a toy tokenizer: one token per character
    ...     def decode(self, ids, **kwargs):
    ...         return "".join(chr(i) for i in ids)
    >>> request = GenerationRequest(Prompt((Message("user", "q"),)), SamplingParams(), 10,
    ...                             stop_at=lambda text: text.find(".") + 1 or None)
    >>> reader = GenerationReader(request, Chars(), context=[], end_ids=frozenset())
    >>> [reader.add_token(ord(c)) for c in "Hi. Yo"][:4]
    [False, False, True, True]
    >>> reader.generation().text, reader.generation().finish_reason.value
    ('Hi.', 'boundary')

"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llenvs.core import FinishReason, Generation, GenerationRequest
from llenvs.inference._backends.text_decoding import TextDecoder, ending

__all__ = ["GenerationReader"]


class GenerationReader:
    """Collects one call's tokens and text and decides when the call is finished.

    Arguments:
        request: the call's request (its stop sequences, ``stop_at`` and ``max_tokens``).
        tokenizer: decodes ids (``decode(ids, skip_special_tokens=..., ...)``); None when the
            server's text is used as is (``add_text`` only).
        context: token ids before the generated ones (the prompt), for decoding.
        end_ids: ids that end the assistant turn.

    Once finished, later tokens are ignored (``add_token`` keeps returning True).

    """

    def __init__(
        self,
        request: GenerationRequest,
        tokenizer: Any | None,
        *,
        context: Sequence[int],
        end_ids: frozenset[int],
    ) -> None:
        self.request = request
        self.decoder = TextDecoder(tokenizer, context) if tokenizer is not None else None
        self.end_ids = end_ids
        self.tokens: list[int] = []
        self.logprobs: list[float] = []
        self.text = ""
        self.reason: FinishReason | None = None

    @property
    def finished(self) -> bool:
        """Whether the call is over (a reason has been decided)."""
        return self.reason is not None

    def add_token(self, token: int, logprob: float | None = None) -> bool:
        """Add one generated token; True when the call is finished."""
        if self.reason is not None:
            return True
        if self.decoder is None:
            raise ValueError("add_token needs a tokenizer to decode the ids")
        if token in self.end_ids:
            self.text = self.decoder.text(self.tokens, final=True)
            self.reason = FinishReason.STOP
            return True
        self.tokens.append(token)
        self.logprobs.append(0.0 if logprob is None else logprob)
        self.text = self.decoder.text(self.tokens)
        return self._check()

    def add_text(self, piece: str, ids: Sequence[int]) -> bool:
        """Add a piece of text and the ids it counts as; True when the call is finished."""
        if self.reason is not None:
            return True
        self.tokens.extend(ids)
        self.logprobs.extend(0.0 for _ in ids)
        self.text += piece
        return self._check()

    def end(self, server_reason: str | None) -> None:
        """The stream ended: the server's ``finish_reason`` decides, unless already finished."""
        if self.reason is not None:
            return
        if self.decoder is not None:
            self.text = self.decoder.text(self.tokens, final=True)
        self.reason = FinishReason.LENGTH if server_reason == "length" else FinishReason.STOP

    def generation(self) -> Generation:
        """The call's ``Generation`` (``LENGTH`` if no reason was decided)."""
        logprobs = tuple(self.logprobs) if self.request.params.logprobs else None
        return Generation(
            self.text, self.reason or FinishReason.LENGTH, tuple(self.tokens), logprobs
        )

    def _check(self) -> bool:
        self.text, self.reason = ending(self.request, self.text, len(self.tokens))
        return self.reason is not None
