"""Requests of one batch with the same token ids are prefilled once (the transformers backend)."""

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import torch

from llenvs.core import Message, Prompt, SamplingParams
from llenvs.core.backend import Generation, GenerationRequest
from llenvs.inference.backends.transformers_backend import TransformersBackend

QUESTION = Prompt((Message("user", "A farmer has 3 cows and 4 hens. How many legs in all?"),))
OTHER = Prompt((Message("user", "Name two colours of the rainbow."),))
UNIQUE = Prompt((Message("user", "Say hello."),))


def _fresh(embedded_backend, *, fork: bool = True) -> TransformersBackend:
    """A backend on the embedded model with an empty session store."""
    model, tokenizer = embedded_backend.model, embedded_backend.tokenizer
    return TransformersBackend(model, tokenizer, name="transformers/test", fork_prefixes=fork)


def _requests(prompts, max_tokens=8, **params) -> list[GenerationRequest]:
    return [GenerationRequest(p, SamplingParams(**params), max_tokens) for p in prompts]


@contextmanager
def _fed(backend) -> Iterator[list[int]]:
    """Counts the tokens each forward call feeds (rows times width), prefill calls only."""
    counts: list[int] = []

    def spy(module, args, kwargs):
        shape = kwargs["input_ids"].shape
        if shape[1] > 1:
            counts.append(int(shape[0] * shape[1]))

    handle = backend.model.register_forward_pre_hook(spy, with_kwargs=True)
    try:
        yield counts
    finally:
        handle.remove()


def _texts(generations: list[Generation]) -> list[str]:
    return [g.text for g in generations]


def test_k_identical_greedy_requests_equal_one_request(embedded_backend):
    alone = _fresh(embedded_backend).generate(_requests([QUESTION]))[0]
    four = _fresh(embedded_backend).generate(_requests([QUESTION] * 4))
    assert [(g.text, g.token_ids) for g in four] == [(alone.text, alone.token_ids)] * 4


def test_k_identical_prompts_are_prefilled_once(embedded_backend):
    length = len(embedded_backend.render(QUESTION.messages))
    forked, unforked = _fresh(embedded_backend), _fresh(embedded_backend, fork=False)
    with _fed(forked) as once:
        forked.generate(_requests([QUESTION] * 4, max_tokens=3))
    with _fed(unforked) as each:
        unforked.generate(_requests([QUESTION] * 4, max_tokens=3))
    assert sum(once) == length
    assert sum(each) == 4 * length


def test_the_same_prompt_again_in_a_batch_feeds_nothing_new(embedded_backend):
    backend = _fresh(embedded_backend)
    alone = backend.generate(_requests([QUESTION]))[0]
    with _fed(backend) as fed:
        four = backend.generate(_requests([QUESTION] * 4))
    assert sum(fed) == 0
    assert _texts(four) == [alone.text] * 4


def test_seeded_samples_differ_and_match_unforked_ones(embedded_backend):
    prompts = [QUESTION] * 4
    params = {"temperature": 1.0, "max_tokens": 12}
    requests = [
        GenerationRequest(p, SamplingParams(**params, seed=seed), 12)
        for seed, p in enumerate(prompts)
    ]
    forked = _texts(_fresh(embedded_backend).generate(requests))
    assert len(set(forked)) > 1
    assert forked == _texts(_fresh(embedded_backend, fork=False).generate(requests))


def test_a_mixed_batch_is_forked_per_group_and_equals_the_unforked_batch(embedded_backend):
    prompts = [QUESTION, OTHER, QUESTION, UNIQUE, OTHER, QUESTION]
    render = embedded_backend.render
    widest = max(len(render(p.messages)) for p in prompts)
    forked, unforked = _fresh(embedded_backend), _fresh(embedded_backend, fork=False)
    with _fed(forked) as fed:
        got = forked.generate(_requests(prompts))
    assert sum(fed) == 3 * widest  # three distinct prompts, left-padded to the longest
    want = unforked.generate(_requests(prompts))
    assert _texts(got) == _texts(want)
    assert got[0] == got[2] == got[5] and got[1] == got[4]


@pytest.mark.parametrize("fork", [True, False])
def test_forked_rows_own_their_caches_and_continue_independently(embedded_backend, fork):
    backend = _fresh(embedded_backend, fork=fork)
    requests = [
        GenerationRequest(QUESTION, SamplingParams(temperature=1.0, seed=seed), 6)
        for seed in range(3)
    ]
    first = backend.generate(requests)
    caches = [s.cache for s in backend.sessions]
    pointers = {layer.keys.data_ptr() for cache in caches for layer in cache.layers}
    assert len(pointers) == sum(len(cache.layers) for cache in caches)
    follow = [
        GenerationRequest(Prompt(QUESTION.messages, g.text, g.token_ids), SamplingParams(), 6)
        for g in first
    ]
    together = backend.generate(follow)
    reference = _fresh(embedded_backend, fork=False)
    reference.generate(requests)
    assert _texts(together) == _texts(reference.generate(follow))
    for session in backend.sessions:
        assert session.cache.get_seq_length() == len(session.ids)


# Rows whose ids are prefixes of one another (rollouts from every boundary of one response).

CUTS = (0, 5, 11, 17)


@pytest.fixture(scope="module")
def response_ids(embedded_backend) -> tuple[int, ...]:
    """A greedy response to ``QUESTION``, cut below at ``CUTS``."""
    generation = _fresh(embedded_backend).generate(_requests([QUESTION], max_tokens=20))[0]
    assert len(generation.token_ids) >= max(CUTS)
    return generation.token_ids


def _boundaries(backend, ids: tuple[int, ...], cuts=CUTS) -> list[Prompt]:
    """``QUESTION`` with the response kept up to each cut (the model's own token ids)."""
    decode = backend.tokenizer.decode
    return [Prompt(QUESTION.messages, decode(ids[:cut]), ids[:cut]) for cut in cuts]


def test_nested_prefixes_feed_only_the_longest_once(embedded_backend, response_ids):
    prompts = _boundaries(embedded_backend, response_ids)
    longest = len(embedded_backend.prompt_ids(prompts[-1]))
    forked, unforked = _fresh(embedded_backend), _fresh(embedded_backend, fork=False)
    with _fed(forked) as once:
        forked.generate(_requests(prompts, max_tokens=3))
    with _fed(unforked) as each:
        unforked.generate(_requests(prompts, max_tokens=3))
    assert once == [longest]
    assert sum(each) == len(prompts) * longest


def test_nested_rows_decode_as_each_request_alone(embedded_backend, response_ids):
    prompts = _boundaries(embedded_backend, response_ids)
    got = _fresh(embedded_backend).generate(_requests(prompts, logprobs=True))
    unforked = _fresh(embedded_backend, fork=False).generate(_requests(prompts, logprobs=True))
    for generation, prompt, other in zip(got, prompts, unforked, strict=True):
        alone = _fresh(embedded_backend).generate(_requests([prompt], logprobs=True))[0]
        assert generation.token_ids == alone.token_ids == other.token_ids
        # a padded batch computes other sums than batch size 1 (bfloat16 on some CPUs), so
        # the numbers are compared with the unforked batch, the tokens with both
        assert generation.logprobs == pytest.approx(other.logprobs, abs=1e-4)


def test_nested_rows_keep_sessions_as_if_fed_themselves(embedded_backend, response_ids):
    prompts = _boundaries(embedded_backend, response_ids)
    forked, unforked = _fresh(embedded_backend), _fresh(embedded_backend, fork=False)
    forked.generate(_requests(prompts, max_tokens=4))
    unforked.generate(_requests(prompts, max_tokens=4))
    sessions = {s.prompt_length: s for s in forked.sessions}
    references = {s.prompt_length: s for s in unforked.sessions}
    assert sorted(sessions) == sorted(references) and len(sessions) == len(prompts)
    for length, session in sessions.items():
        reference = references[length]
        assert session.tokens == reference.tokens
        assert session.cache.get_seq_length() == len(session.ids)
        assert torch.allclose(session.prompt_logits, reference.prompt_logits, atol=1e-4)
        for layer, other in zip(session.cache.layers, reference.cache.layers, strict=True):
            assert torch.allclose(layer.keys, other.keys, atol=1e-4)
            assert torch.allclose(layer.values, other.values, atol=1e-4)
    tensors = [t for s in forked.sessions for x in s.cache.layers for t in (x.keys, x.values)]
    assert len({t.untyped_storage().data_ptr() for t in tensors}) == len(tensors)


def test_seeded_rollouts_from_nested_prefixes_match_unforked_ones(embedded_backend, response_ids):
    prompts = [p for p in _boundaries(embedded_backend, response_ids) for _ in range(2)]
    requests = [
        GenerationRequest(p, SamplingParams(temperature=1.0, seed=seed), 10)
        for seed, p in enumerate(prompts)
    ]
    forked = _fresh(embedded_backend)
    with _fed(forked) as fed:
        got = forked.generate(requests)
    assert fed == [len(embedded_backend.prompt_ids(prompts[-1]))]
    assert len({g.token_ids for g in got}) > len(CUTS)
    want = _fresh(embedded_backend, fork=False).generate(requests)
    assert [g.token_ids for g in got] == [g.token_ids for g in want]


def test_a_batch_of_nested_identical_and_unrelated_prompts(embedded_backend, response_ids):
    chain = _boundaries(embedded_backend, response_ids, cuts=(0, 9, 17))
    prompts = [chain[1], OTHER, chain[0], chain[2], UNIQUE, chain[1], OTHER, chain[0]]
    widest = max(len(embedded_backend.prompt_ids(p)) for p in (chain[2], OTHER, UNIQUE))
    forked = _fresh(embedded_backend)
    with _fed(forked) as fed:
        got = forked.generate(_requests(prompts))
    assert fed == [3 * widest]  # the chain's longest, OTHER and UNIQUE
    want = _fresh(embedded_backend, fork=False).generate(_requests(prompts))
    assert [g.token_ids for g in got] == [g.token_ids for g in want]
    assert got[0] == got[5] and got[2] == got[7] and got[1] == got[6]
    follow = [
        GenerationRequest(Prompt(p.messages, p.continuation + g.text), SamplingParams(), 4)
        for p, g in zip(prompts, got, strict=True)
    ]
    reference = _fresh(embedded_backend, fork=False)
    reference.generate(_requests(prompts))
    assert _texts(forked.generate(follow)) == _texts(reference.generate(follow))


def test_get_backend_passes_fork_prefixes_on():
    from llenvs.inference import get_backend

    backend = get_backend("transformers", fork_prefixes=False, progress=False)
    assert isinstance(backend, TransformersBackend) and backend.fork_prefixes is False
    assert get_backend("transformers", progress=False).fork_prefixes is True
