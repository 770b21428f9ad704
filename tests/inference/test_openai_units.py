"""The openai backend's pieces that need no server: errors, options, streams, the reader."""

from __future__ import annotations

import openai
import pytest

from llenvs.core import (
    FinishReason,
    GenerationRequest,
    Message,
    Prompt,
    SamplingParams,
    record_dict,
)
from llenvs.core.errors import BackendError, PermanentBackendError, UnknownName
from llenvs.core.run_spec import RunSpec
from llenvs.evaluation import RetryPolicy
from llenvs.inference import (
    HTTPOptions,
    backend_options,
    backend_providers,
    backend_spec,
    get_backend,
)
from llenvs.inference._backends.generation_reader import GenerationReader
from llenvs.inference._backends.openai_errors import backend_error
from llenvs.traces import RunRecord

URL = "http://127.0.0.1:9/v1"
SECRET = "sk-unit-secret-77"


class Status(Exception):
    """A stand-in for an SDK status error: what ``backend_error`` reads of one."""

    def __init__(self, status_code, message):
        super().__init__(message)
        self.status_code = status_code
        self.body = {"error": {"message": message}}


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504, 520])
def test_transient_statuses_are_retryable(status):
    error = backend_error(Status(status, "busy"), "openai/m", URL, SECRET)
    assert type(error) is BackendError and f"HTTP {status}" in str(error) and URL in str(error)
    waits = []
    with pytest.raises(BackendError):
        RetryPolicy(sleep=waits.append).call(lambda: (_ for _ in ()).throw(error))
    assert len(waits) == 2


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_other_statuses_are_permanent_and_hide_the_key(status):
    error = backend_error(Status(status, f"bad request from {SECRET}"), "openai/m", URL, SECRET)
    assert isinstance(error, PermanentBackendError) and "openai/m at " + URL in str(error)
    assert SECRET not in str(error)
    waits = []
    with pytest.raises(PermanentBackendError):
        RetryPolicy(sleep=waits.append).call(lambda: (_ for _ in ()).throw(error))
    assert waits == []


def test_the_provider_is_registered_and_builds_without_a_server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    assert "openai" in backend_providers()
    backend = get_backend("openai/m", base_url=URL + "/", tokenizer="t", mode="chat")
    assert backend.name == "openai/m" and backend.base_url == URL
    assert SECRET not in repr(backend) + repr(backend.capabilities)
    options = backend_options(backend)
    assert options == {
        "base_url": URL,
        "mode": "chat",
        "tokenizer": "t",
        "api_key_env": "OPENAI_API_KEY",
    }
    assert SECRET not in str(record_dict(RunRecord(RunSpec(model=backend_spec(backend)))))
    with pytest.raises(ValueError, match="mode must be"):
        get_backend("openai/m", base_url=URL, mode="edit")
    with pytest.raises(ValueError, match="needs a model name"):
        get_backend("openai", base_url=URL)
    with pytest.raises(UnknownName, match="openai, scripted, transformers"):
        get_backend("nope/m")


def test_a_tokenizer_that_cannot_load_is_permanent_and_named():
    backend = get_backend("openai/no-such-model-anywhere", base_url=URL)
    with pytest.raises(PermanentBackendError, match="cannot load the tokenizer"):
        backend.generate([_request(4)])


def test_an_unreachable_server_is_a_connection_error_naming_the_url(
    monkeypatch, smollm2_tokenizer_folder
):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    folder = str(smollm2_tokenizer_folder)
    backend = get_backend(
        "openai/m", base_url=URL, tokenizer=folder, http=HTTPOptions(max_retries=0)
    )
    with pytest.raises(BackendError, match=r"openai/m at http://127\.0\.0\.1:9/v1: cannot connect"):
        backend.generate([_request(4)])
    assert isinstance(openai.APIConnectionError, type)


def _request(max_tokens, stop=(), stop_at=None, continuation=""):
    prompt = Prompt((Message("user", "q"),), continuation)
    return GenerationRequest(prompt, SamplingParams(stop=stop), max_tokens, stop_at)


class Chars:
    def decode(self, ids, **kwargs):
        return "".join(chr(i) for i in ids)


def _read(request, text, end_ids=frozenset()):
    reader = GenerationReader(request, Chars(), context=[], end_ids=end_ids)
    for character in text:
        if reader.add_token(ord(character)):
            break
    reader.end("stop")
    return reader.generation()


def test_the_reader_applies_stop_then_boundary_then_length():
    assert _read(_request(50, stop=("</a>",)), "x </a> more").text == "x </a>"
    stop_across = _read(_request(50, stop=("</a>",), continuation="x </"), "a> more")
    assert stop_across.text == "a>" and stop_across.finish_reason is FinishReason.STOP
    boundary = _read(_request(50, stop_at=lambda t: 3 if len(t) > 4 else None), "abcdefg")
    assert boundary.text == "abcde" and boundary.finish_reason is FinishReason.BOUNDARY
    length = _read(_request(3), "abcdefg")
    assert length.text == "abc" and length.finish_reason is FinishReason.LENGTH
    ended = _read(_request(50), "ab\x00cd", end_ids=frozenset({0}))
    assert ended.text == "ab" and ended.token_ids == (97, 98)
    assert ended.finish_reason is FinishReason.STOP


def test_a_key_given_directly_is_used_and_never_shown(monkeypatch):
    from llenvs.inference._backends.openai_backend import OpenAIBackend

    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    backend = OpenAIBackend("m", base_url="http://127.0.0.1:9/v1", api_key="sk-typed-in-the-app")
    assert backend._client.api_key == "sk-typed-in-the-app"  # the typed key wins
    shown = repr(backend) + repr(backend.capabilities)
    assert "sk-typed" not in shown and "sk-from" not in shown


class _CountedLock:
    """A lock that counts the threads that have come to it (``arrived``), holding it or not."""

    def __init__(self):
        import threading

        self.lock = threading.Lock()
        self.arrived = threading.Semaphore(0)

    def __enter__(self):
        self.arrived.release()
        return self.lock.__enter__()

    def __exit__(self, *exc):
        return self.lock.__exit__(*exc)


def test_first_calls_made_at_once_probe_the_server_once(monkeypatch):
    """The runner sends each request as its own call, on its own thread: one probe for all,
    and each call then reads its own generation from the server. The probe is held out until
    all four calls have come to the backend's probe lock, so they overlap it, whatever the load."""
    import threading
    from concurrent.futures import ThreadPoolExecutor
    from types import SimpleNamespace

    backend, server = _scripted_completions(monkeypatch, "One. Two. Three.", token_ids=None)
    probes = []
    lock = threading.Lock()
    generate = server.create
    gate = _CountedLock()
    monkeypatch.setattr(backend, "_probe_lock", gate)

    def create(*, prompt, max_tokens, **arguments):
        if not arguments.get("stream"):  # the probe: one token, not streamed
            with lock:
                probes.append(list(prompt))
            for _ in range(4):  # the probing call and the three others: all found no probe yet
                assert gate.arrived.acquire(timeout=60), "the four calls did not overlap"
            return SimpleNamespace(choices=[SimpleNamespace(token_ids=[3])])
        return generate(prompt=prompt, max_tokens=max_tokens, **arguments)

    monkeypatch.setattr(backend._client.completions, "create", create)
    requests = [_until_sentence([], budget) for budget in (1, 2, 3, 4)]
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda r: backend.generate([r])[0].text, requests))
    backend.close()
    assert probes == [[ord(c) for c in "Hi"]] and backend._token_ids is True
    assert answers == ["O", "On", "One", "One."]
    assert sorted(budget for _, budget in server.requests) == [1, 2, 3, 4]


class _Script:
    """A fake completions server: every prompt continues ``text`` (one token per character,
    two per chunk) from where the prompt's generated part ends; it counts its requests."""

    def __init__(self, text, head=(113,)):
        self.text, self.head, self.requests, self.closed = text, list(head), [], 0

    def create(self, *, prompt, max_tokens, **arguments):
        from types import SimpleNamespace

        self.requests.append((list(prompt), max_tokens))
        done = len(prompt) - len(self.head)
        rest = [ord(c) for c in self.text[done:]][:max_tokens]
        reason = "length" if len(self.text) - done > max_tokens else "stop"
        chunks = [
            SimpleNamespace(
                choices=[
                    SimpleNamespace(
                        token_ids=rest[i : i + 2],
                        text="",
                        logprobs=None,
                        finish_reason=reason if i + 2 >= len(rest) else None,
                    )
                ]
            )
            for i in range(0, len(rest), 2)
        ]
        script = self

        class Response:
            def __iter__(self):
                return iter(chunks)

            def close(self):
                script.closed += 1

        return Response()


def _scripted_completions(monkeypatch, text, token_ids=True):
    from types import SimpleNamespace

    from llenvs.inference._backends.openai_backend import OpenAIBackend

    backend = OpenAIBackend("m", base_url=URL, tokenizer="unused", token_ids=token_ids)
    backend._chat = SimpleNamespace(
        tokenizer=Chars(),
        end_ids=frozenset(),
        encode=lambda text: [ord(c) for c in text],
        decode=lambda ids: "".join(map(chr, ids)),
        prompt_ids=lambda prompt: [113, *(prompt.continuation_token_ids or ())],
    )
    server = _Script(text)
    monkeypatch.setattr(backend._client.completions, "create", server.create)
    return backend, server


def _until_sentence(ids, budget):
    from llenvs.core.segmenters import SentenceSegmenter

    prompt = Prompt((Message("user", "q"),), "".join(map(chr, ids)), tuple(ids))
    return GenerationRequest(prompt, SamplingParams(), budget, SentenceSegmenter().find_boundary)


def test_completions_read_one_stream_across_segments(monkeypatch):
    """Segments continued from the ids read so far come from one request, none lost between
    chunks; a call that continues other ids opens a new one."""
    backend, server = _scripted_completions(monkeypatch, "One. Two. Three. Four.")
    ids: list[int] = []
    texts = []
    while True:
        generation = backend.generate([_until_sentence(ids, 40 - len(ids))])[0]
        ids += generation.token_ids
        texts.append(generation.text)
        if generation.finish_reason is not FinishReason.BOUNDARY:
            break
    assert "".join(texts) == "One. Two. Three. Four." and len(texts) == 4
    assert server.requests == [([113], 40)] and server.closed == 1
    first = backend.generate([_until_sentence([], 40)])[0]  # a branch from the start
    forced = [ord(c) for c in "One. "]
    after_force = backend.generate([_until_sentence(forced, 35)])[0]
    assert first.text == "One. T" and after_force.text == "Two. T"
    assert [r for r, _ in server.requests] == [[113], [113], [113, *forced]]
    # a kept stream that would end before the call's budget is not read on: a new request
    backend.generate([_until_sentence([*forced, *after_force.token_ids], 99)])
    assert server.requests[-1][1] == 99 and server.closed == 2
    backend.close()


def test_chat_mode_counts_with_tiktoken_when_the_models_tokenizer_is_not_at_hand():
    from llenvs.inference._backends.chat_tokenizer import CountingTokens

    hosted = get_backend("openai/gpt-4o-mini", base_url=URL, mode="chat")
    assert isinstance(hosted.counter, CountingTokens) and hosted.capabilities.tokenizer() is None
    assert hosted.counter.encode("Hello world") == [9906, 1917]
    named = get_backend("openai/gpt-4o-mini", base_url=URL, mode="chat", tokenizer="no/such")
    with pytest.raises(PermanentBackendError, match="cannot load the tokenizer 'no/such'"):
        named.generate([_request(4)])  # a tokenizer asked for by name must load


def test_a_kept_stream_serves_only_calls_with_its_sampling(monkeypatch):
    backend, server = _scripted_completions(monkeypatch, "One. Two. Three.")
    first = backend.generate([_until_sentence([], 30)])[0]
    request = _until_sentence(list(first.token_ids), 30 - len(first.token_ids))
    seeded = GenerationRequest(
        request.prompt, SamplingParams(seed=3), request.max_tokens, request.stop_at
    )
    backend.generate([seeded])
    assert len(server.requests) == 2 and server.requests[1][0] == [113, *first.token_ids]
    backend.close()
