"""``CompletionStream``: one streamed ``/completions`` response, read across several calls.

Completions mode reads a response token by token and stops at the segment boundary. The rest of
the response is not thrown away: the stream is kept (``OpenStreams``) under the token ids it
continues (the prompt and every id read so far) and the sampling it was opened with, and the
next call that continues exactly those ids reads on from the very next token. A trajectory the
runner does not intervene on is then one request, however many segments it is cut into: the
server batches it as one sequence and never encodes its prompt again, and the segments are one
call's tokens (invariant 3), sampled or greedy. A call that continues other ids (a forced
segment, feedback, a branch) opens a new request.

The stream yields events in the order the server sent them; a call stops reading after any
event, and the next call resumes with the event after it, so tokens a chunk carried past a
boundary are read by the next call, not lost.

Example:
    >>> class Choice:
    ...     def __init__(self, ids, finish=None):
    ...         self.token_ids, self.finish_reason, self.logprobs, self.text = ids, finish, None, ""
    >>> class Chunk:
    ...     def __init__(self, *choices):
    ...         self.choices = choices
    >>> class Response:
    ...     closed = False
    ...     def __iter__(self):
    ...         return iter([Chunk(Choice([5, 6])), Chunk(Choice([7], "length"))])
    ...     def close(self):
    ...         self.closed = True
    >>> from llenvs.core._backend import GenerationRequest, Message, Prompt, SamplingParams
    >>> class Chars:  # a toy tokenizer: one token per character
    ...     def decode(self, ids, **kwargs):
    ...         return "".join(chr(i) for i in ids)
    >>> def call():  # a call that reads one token
    ...     request = GenerationRequest(Prompt((Message("user", "q"),)), SamplingParams(), 1)
    ...     return GenerationReader(request, Chars(), context=[], end_ids=frozenset())
    >>> stream = CompletionStream(Response(), allowance=3, encode=None, token_ids=True)
    >>> [stream.feed(call()).token_ids for _ in range(3)], stream.allowance, stream.ended
    ([(5,), (6,), (7,)], 0, False)
    >>> list(stream.events), stream.ended
    ([End(reason='length')], True)

"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from llenvs.core import FinishReason, Generation, GenerationRequest
from llenvs.inference._backends.generation_reader import GenerationReader
from llenvs.inference._backends.open_streams import OpenStreams

__all__ = [
    "CompletionStream",
    "End",
    "Event",
    "Text",
    "Token",
    "choice_ids",
    "read_kept",
    "sampling_key",
]


@dataclass(frozen=True)
class Token:
    """A generated token id the server returned, with its logprob when asked for."""

    id: int
    logprob: float | None


@dataclass(frozen=True)
class Text:
    """A piece of generated text (a server that returns no ids) and our encoding of it."""

    piece: str
    ids: tuple[int, ...]


@dataclass(frozen=True)
class End:
    """The response ended."""

    reason: str | None
    """The server's ``finish_reason`` (``"stop"``, ``"length"``); None when it gave none."""


Event = Token | Text | End
"""What a completion stream yields."""


class CompletionStream:
    """A streamed completion and what it may still generate.

    Arguments:
        response: the SDK's stream (iterable of chunks, ``close()``).
        allowance: the ``max_tokens`` it was opened with (tokens it may still send).
        encode: text to ids, for a server that returns text only.
        token_ids: whether its choices carry the generated ids (vLLM's ``return_token_ids``).
        chat: whether it is a chat completion (text in ``delta.content``).

    """

    def __init__(
        self,
        response: Any,
        *,
        allowance: int,
        encode: Callable[[str], Sequence[int]] | None,
        token_ids: bool = False,
        chat: bool = False,
    ) -> None:
        self.response = response
        self.allowance = allowance
        self.ended = False
        """Whether the server's last event (``End``) has been read."""
        self._token_ids = token_ids
        self._encode = encode
        self._chat = chat
        self.events: Iterator[Event] = self._events()

    def feed(self, reader: GenerationReader) -> Generation:
        """Read events into ``reader`` until its call is finished; the call's generation.

        The tokens read count against the allowance; an error closes the stream.
        """
        try:
            for event in self.events:
                if isinstance(event, Token):
                    reader.add_token(event.id, event.logprob)
                elif isinstance(event, Text):
                    reader.add_text(event.piece, event.ids)
                else:
                    reader.end(event.reason)
                if reader.finished:
                    break
            reader.end(None)
        except BaseException:
            self.close()
            raise
        generation = reader.generation()
        self.allowance -= len(generation.token_ids)
        return generation

    def close(self) -> None:
        """Close the response (the server drops the request)."""
        self.response.close()

    def _events(self) -> Iterator[Event]:
        for chunk in self.response:
            for choice in chunk.choices:
                ids = choice_ids(choice) if self._token_ids else None
                text = (choice.delta.content if self._chat else choice.text) or ""
                if ids is not None:
                    logprobs = getattr(getattr(choice, "logprobs", None), "token_logprobs", None)
                    logprobs = logprobs or []
                    for position, token in enumerate(ids):
                        logprob = logprobs[position] if position < len(logprobs) else None
                        yield Token(token, logprob)
                elif text:
                    yield Text(text, tuple(self._encode(text)) if self._encode else ())
                if choice.finish_reason is not None:
                    self.ended = True
                    yield End(choice.finish_reason)
                    return
        self.ended = True
        yield End(None)


def choice_ids(choice: Any) -> list[int] | None:
    """The generated ids a vLLM choice carries (``token_ids``), or None.

    Example:
        >>> class Choice:
        ...     model_extra = {"token_ids": ["3", 4]}
        >>> choice_ids(Choice()), choice_ids(object())
        ([3, 4], None)

    """
    ids = getattr(choice, "token_ids", None)
    if ids is None:
        ids = (getattr(choice, "model_extra", None) or {}).get("token_ids")
    return None if ids is None else [int(i) for i in ids]


def sampling_key(request: GenerationRequest) -> tuple[object, ...]:
    """What a kept stream must have been opened with to serve ``request``: its sampling.

    Example:
        >>> from llenvs.core._backend import Message, Prompt, SamplingParams
        >>> prompt = Prompt((Message("user", "q"),))
        >>> sampling_key(GenerationRequest(prompt, SamplingParams(temperature=0.7, seed=3), 8))
        (0.7, 1.0, None, 3, False)

    """
    params = request.params
    return (params.temperature, params.top_p, params.top_k, params.seed, params.logprobs)


def read_kept(
    streams: OpenStreams,
    key: Hashable,
    next_key: Callable[[Generation], Hashable],
    reader: GenerationReader,
    open_stream: Callable[[], CompletionStream],
    max_tokens: int,
) -> Generation:
    """One call: read the stream kept under ``key`` (or a new one) into ``reader``.

    A kept stream that may send fewer than ``max_tokens`` tokens is closed and a new one opened
    (it would end before this call's budget). After the call the stream is closed when it ended
    or the call stopped; else it is kept under ``next_key(generation)``, for the call that
    continues exactly what was read.
    """
    stream = streams.take(key)
    if stream is not None and stream.allowance < max_tokens:
        stream.close()
        stream = None
    if stream is None:
        stream = open_stream()
    generation = stream.feed(reader)
    if stream.ended or generation.finish_reason is FinishReason.STOP:
        stream.close()
    else:
        streams.put(next_key(generation), stream)
    return generation
