"""The openai backend: any OpenAI-compatible server (vLLM, SGLang, llama.cpp server, hosted APIs).

``get_backend("openai/<model>", base_url=..., mode="completions" | "chat", tokenizer=...)``.

**Completions mode** (the default; meant for vLLM): the chat template is applied here, with the
model's tokenizer (``tokenizer``: a local folder or a cached hub id; by default the model name),
and the prompt is sent as token ids: the closed turns, an open assistant turn, then the turn's
``continuation_token_ids`` when given (the ids the server generated in earlier calls), so
segment-by-segment continuation is the same token sequence as one call (invariant 3). The
server's generated ids are read back (vLLM: ``"return_token_ids": true``). The first call probes
once whether the server takes token-id prompts and returns ids; when it does not, prompts are
sent as text (rendered here) and the ids are the tokenizer's encoding of the text, which may not
be the server's tokens. Measured on vLLM with SmolLM2, greedy, 16-token segments on 20 prompts:
continued from ids, 20 identical to one call; continued from text, 19. Responses are streamed
and read token by token: stop sequences, ``stop_at`` and ``max_tokens`` apply as in the
transformers backend. A call that stops at a boundary keeps its stream open (``completion_stream``)
and the next call that continues exactly the ids read so far reads on from it, so a trajectory
without interventions is one request however many segments it has. A stream that ended or
stopped is closed (the server then drops the request); one an intervention left behind is closed
after a minute unread, when more than ``2 * max_in_flight`` streams are kept, or by ``close()``.

**Chat mode** (hosted APIs): the conversation goes as chat messages (feedback turns are real user
turns); each live stretch of segments is one streamed request, read until the boundary. The
stream stays open between calls while the next request continues exactly the text read so far;
after an intervention a new request sends the assistant turn so far as a last assistant message
with vLLM's ``continue_final_message`` (servers without it refuse the request).

``generate`` serves its requests concurrently, up to ``max_in_flight`` at once, so the server
batches them. Failures: the SDK retries connection errors, timeouts, 408/409/429 and 5xx with
exponential backoff and jitter (``http.max_retries``), or ``retry`` (a ``RetryPolicy``) does, one
request at a time; what still fails is a ``BackendError`` the runner's policy may retry, and
other statuses (400, 401, 404) a ``PermanentBackendError`` naming the model and URL. The API key
is read from the environment variable ``api_key_env`` (``"EMPTY"`` when unset: vLLM needs none)
and appears in no repr, error or record.

Example:
    >>> backend = make_backend("smollm2", base_url="http://127.0.0.1:9/v1", tokenizer=None)
    >>> backend.name, backend.base_url, backend.mode
    ('openai/smollm2', 'http://127.0.0.1:9/v1', 'completions')

"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, Protocol, TypeVar

from llenvs.core import (
    BackendCapabilities,
    Generation,
    GenerationRequest,
    Prompt,
    TextScore,
)
from llenvs.core.errors import BackendError, PermanentBackendError
from llenvs.inference._backends.chat_tokenizer import (
    ChatTokenizer,
    CountingTokens,
    counting_tokenizer,
)
from llenvs.inference._backends.completion_stream import (
    CompletionStream,
    choice_ids,
    read_kept,
    sampling_key,
)
from llenvs.inference._backends.generation_reader import GenerationReader
from llenvs.inference._backends.http_options import HTTPOptions
from llenvs.inference._backends.open_streams import OpenStreams
from llenvs.inference._backends.openai_errors import backend_error, is_transport_error
from llenvs.inference._backends.server_extras import served_context_length, server_score
from llenvs.inference._generate_until import GenerateUntil

__all__ = ["Mode", "OpenAIBackend", "make_backend"]

Mode = Literal["completions", "chat"]
"""How prompts are sent: token ids to ``/completions``, or messages to ``/chat/completions``."""

T = TypeVar("T")


class Retry(Protocol):
    """Anything that retries a call (``llenvs.evaluation.RetryPolicy``)."""

    def call(self, function: Callable[[], T]) -> T:
        """``function()``, tried again after failures."""
        ...


class OpenAIBackend(GenerateUntil):
    """A model behind an OpenAI-compatible HTTP server (see the module docstring).

    Arguments:
        model: the server's model name (``--served-model-name`` for vLLM).
        base_url: the server's URL, ``http://host:port/v1``.
        api_key_env: the environment variable that holds the API key.
        api_key: the key itself (typed in the workbench for one session), instead of the
            variable's; kept for the requests only, never in a repr, a trace or an error.
        mode: ``"completions"`` (token ids; vLLM) or ``"chat"`` (hosted APIs).
        tokenizer: the model's tokenizer (folder or cached hub id) for the chat template and
            token ids; by default the model name. Loaded on first use. Chat mode needs it only to
            count tokens: without one given, and none loadable by the model's name (a hosted
            model), it counts with tiktoken's cl100k (``CountingTokens``).
        max_in_flight: most requests in flight at once.
        http: the client's timeout and its own retries of a failed request (``HTTPOptions``).
        retry: retries each request with this policy instead (then ``http.max_retries`` is 0).
        token_ids: whether the server takes token-id prompts; None to probe on first use.

    Example:
        >>> backend = OpenAIBackend("m", base_url="http://127.0.0.1:9/v1", max_in_flight=4)
        >>> backend
        OpenAIBackend('openai/m', base_url='http://127.0.0.1:9/v1', mode='completions')
        >>> backend.capabilities.max_in_flight, sorted(backend.capabilities.rebuild_options)
        (4, ['api_key_env', 'base_url', 'mode', 'tokenizer'])

    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        api_key: str | None = None,
        mode: Mode = "completions",
        tokenizer: str | None = None,
        max_in_flight: int = 32,
        http: HTTPOptions | None = None,
        retry: Retry | None = None,
        token_ids: bool | None = None,
    ) -> None:
        import openai

        if not model:
            raise ValueError("an openai backend needs a model name: 'openai/<model>'")
        if mode not in ("completions", "chat"):
            raise ValueError(f"mode must be 'completions' or 'chat', got {mode!r}")
        if max_in_flight < 1:
            raise ValueError(f"max_in_flight must be >= 1, got {max_in_flight}")
        self.model = model
        self.mode: Mode = mode
        self.api_key_env = api_key_env
        self.tokenizer_name = tokenizer or model
        self._counting_only = mode == "chat" and tokenizer is None
        self.max_in_flight = max_in_flight
        self.retry = retry
        self._key = api_key or os.environ.get(api_key_env) or "EMPTY"
        http = HTTPOptions() if http is None else http
        self._client = openai.OpenAI(
            base_url=base_url,
            api_key=self._key,
            max_retries=0 if retry is not None else http.max_retries,
            timeout=http.timeout_s,
        )
        self.base_url = str(self._client.base_url).rstrip("/")
        """The server's URL (recorded in traces; the key never is)."""
        self._token_ids = token_ids
        self.context_length: int | None = None
        """The server's context window for this model (vLLM's ``max_model_len``), once probed;
        None when unknown (then ``max_tokens`` goes to the server as asked)."""
        self._chat: ChatTokenizer | None = None
        self._counter: ChatTokenizer | CountingTokens | None = None
        self._lock = threading.Lock()
        self._probe_lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_in_flight, thread_name_prefix="llenvs-openai")
        self._streams = OpenStreams(limit=2 * max_in_flight)
        self.capabilities = BackendCapabilities(
            max_in_flight=max_in_flight,
            rebuild_options={
                "base_url": self.base_url,
                "mode": self.mode,
                "tokenizer": self.tokenizer_name,
                "api_key_env": self.api_key_env,
            },
            load_tokenizer=(lambda: self.chat.tokenizer) if mode == "completions" else None,
            score=self.score if mode == "completions" else None,
        )
        """Concurrent calls, how to reach the server again (never the key), and, in completions
        mode, the tokenizer whose ids the server generates (loaded when first asked for), so a
        ``TokenSegmenter`` on it cuts the model's own tokens, and ``score`` (vLLM's prompt
        log-probabilities); chat mode's ids are counted, not the server's, and it scores
        nothing."""

    def __repr__(self) -> str:
        return f"OpenAIBackend({self.name!r}, base_url={self.base_url!r}, mode={self.mode!r})"

    @property
    def name(self) -> str:
        """``"openai/<model>"``."""
        return f"openai/{self.model}"

    @property
    def chat(self) -> ChatTokenizer:
        """The model's tokenizer, loaded on first use."""
        with self._lock:
            if self._chat is None:
                self._chat = ChatTokenizer.load(self.tokenizer_name)
            return self._chat

    @property
    def counter(self) -> ChatTokenizer | CountingTokens:
        """What counts generated tokens: the model's tokenizer, else (chat mode) tiktoken's."""
        if not self._counting_only:
            return self.chat
        with self._lock:
            if self._counter is None:
                self._counter = counting_tokenizer(self.tokenizer_name)
            return self._counter

    def close(self) -> None:
        """Close open streams and the HTTP client."""
        self._streams.close_all()
        self._pool.shutdown(wait=False)
        self._client.close()

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Generation]:
        """One generation per request, up to ``max_in_flight`` requests in flight at once."""
        if not requests:
            return []
        self.counter  # noqa: B018 - a tokenizer that cannot load fails once, before any request
        if self.mode == "completions" and self._token_ids is None:
            with self._probe_lock:  # first calls made at once (the runner's threads) probe once
                if self._token_ids is None:
                    self._probe(self.chat)
        futures = [self._pool.submit(self._one, request) for request in requests]
        errors = [f.exception() for f in futures]
        for error in errors:
            if error is not None:
                raise error
        return [f.result() for f in futures]

    def score(self, items: Sequence[tuple[Prompt, str]]) -> list[TextScore]:
        """Each text's log-probabilities after its prompt (``server_score``), several at once."""
        chat, where = self.chat, f"{self.name} at {self.base_url}"

        def one(item: tuple[Prompt, str]) -> TextScore:
            prompt, text = item
            return self._guarded(
                lambda: server_score(self._client, self.model, chat, prompt, text, where)
            )

        return list(self._pool.map(one, items))

    def _one(self, request: GenerationRequest) -> Generation:
        call = self._complete if self.mode == "completions" else self._chat_call
        return self._guarded(lambda: call(request))

    def _guarded(self, call: Callable[[], T]) -> T:
        """``call()``, retried by ``retry`` when set, its errors made llenvs errors."""
        if self.retry is None:
            return self._translated(call)
        return self.retry.call(lambda: self._translated(call))

    def _translated(self, call: Callable[[], T]) -> T:
        """``call()`` with the SDK's and the network's errors made llenvs errors."""
        try:
            return call()
        except BackendError:
            raise
        except Exception as error:
            if not is_transport_error(error):
                raise
            raise backend_error(error, self.name, self.base_url, self._key) from None

    def _sampling(self, request: GenerationRequest) -> tuple[dict[str, Any], dict[str, Any]]:
        """The request's sampling arguments, and the extra body fields (vLLM's ``top_k``)."""
        params = request.params
        arguments: dict[str, Any] = {"temperature": params.temperature, "top_p": params.top_p}
        if params.seed is not None:
            arguments["seed"] = params.seed
        extra: dict[str, Any] = {}
        if params.top_k is not None:
            extra["top_k"] = params.top_k
        return arguments, extra

    def _probe(self, chat: ChatTokenizer) -> None:
        """Ask once whether the server takes token-id prompts and returns the generated ids."""
        ids = chat.encode("Hi")
        try:
            response = self._client.completions.create(
                model=self.model,
                prompt=ids,
                max_tokens=1,
                temperature=0.0,
                extra_body={"return_token_ids": True},
            )
        except Exception as error:
            if not is_transport_error(error):
                raise
            translated = backend_error(error, self.name, self.base_url, self._key)
            status = getattr(error, "status_code", None)
            if not isinstance(translated, PermanentBackendError) or status in (401, 403, 404):
                raise translated from None
            self._token_ids = False  # a 400 or 422: the server wants text prompts
            return
        choices = response.choices
        self._token_ids = bool(choices) and choice_ids(choices[0]) is not None
        self.context_length = served_context_length(self._client, self.model)

    def _complete(self, request: GenerationRequest) -> Generation:
        """Completions mode: read the open stream this request continues, or open one."""
        chat = self.chat
        ids = chat.prompt_ids(request.prompt)
        reader = GenerationReader(request, chat.tokenizer, context=ids, end_ids=chat.end_ids)
        max_tokens = request.max_tokens
        if self.context_length is not None:  # the server refuses (400) a request past its window
            max_tokens = min(max_tokens, self.context_length - len(ids))
            if max_tokens <= 0:
                reader.end("length")  # the context is full: nothing more can be generated
                return reader.generation()
        sampling = sampling_key(request)
        return read_kept(
            self._streams,
            (tuple(ids), sampling),
            lambda generation: (tuple(ids) + generation.token_ids, sampling),
            reader,
            lambda: self._open_completion(request, ids, max_tokens),
            max_tokens,
        )

    def _open_completion(
        self, request: GenerationRequest, ids: list[int], max_tokens: int
    ) -> CompletionStream:
        """A new streamed completion of ``ids``, for up to ``max_tokens`` tokens."""
        chat = self.chat
        arguments, extra = self._sampling(request)
        if request.params.logprobs:
            arguments["logprobs"] = 0
        if self._token_ids:
            extra["return_token_ids"] = True
        response = self._client.completions.create(
            model=self.model,
            prompt=ids if self._token_ids else chat.decode(ids),
            max_tokens=max_tokens,
            stream=True,
            extra_body=extra,
            **arguments,
        )
        return CompletionStream(
            response, allowance=max_tokens, encode=chat.encode, token_ids=bool(self._token_ids)
        )

    def _chat_call(self, request: GenerationRequest) -> Generation:
        """Chat mode: read the open stream this request continues, or open one."""
        prompt = request.prompt
        reader = GenerationReader(request, None, context=(), end_ids=frozenset())
        sampling = sampling_key(request)
        return read_kept(
            self._streams,
            (prompt.messages, prompt.continuation, sampling),
            lambda generation: (prompt.messages, prompt.continuation + generation.text, sampling),
            reader,
            lambda: self._open_chat(request),
            request.max_tokens,
        )

    def _open_chat(self, request: GenerationRequest) -> CompletionStream:
        """A new streamed chat request for ``request`` (the open assistant turn continued)."""
        prompt = request.prompt
        messages: list[dict[str, str]] = [
            {"role": m.role, "content": m.content} for m in prompt.messages
        ]
        arguments, extra = self._sampling(request)
        if prompt.continuation:
            messages.append({"role": "assistant", "content": prompt.continuation})
            extra.update(continue_final_message=True, add_generation_prompt=False)
        if request.params.logprobs:
            arguments.update(logprobs=True, top_logprobs=0)
        response = self._client.chat.completions.create(
            model=self.model,
            messages=messages,  # type: ignore[arg-type]
            max_tokens=request.max_tokens,
            stream=True,
            extra_body=extra or None,
            **arguments,
        )
        return CompletionStream(
            response, allowance=request.max_tokens, encode=self.counter.encode, chat=True
        )


def make_backend(model: str | None = None, **options: Any) -> OpenAIBackend:
    """The registry's factory: ``get_backend("openai/<model>", base_url=..., ...)``.

    Example:
        >>> make_backend(None)
        Traceback (most recent call last):
        ...
        ValueError: an openai backend needs a model name: 'openai/<model>'

    """
    return OpenAIBackend(model or "", **options)
