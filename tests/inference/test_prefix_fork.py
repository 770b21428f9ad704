"""Requests of one batch with the same token ids are prefilled once (the transformers backend).

Forked rows equal unforked ones: token for token in float32 (log-probabilities within
``tests.floats.FLOAT_TOLERANCE``), up to rounding in bfloat16
(``tests/inference/precisions.py``); both precisions are forced, whatever the CPU.
"""

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import torch

from llenvs.core import Generation, GenerationRequest, Message, Prompt, SamplingParams
from llenvs.inference._backends.transformers_backend import TransformersBackend
from tests.floats import FLOAT_TOLERANCE, assert_same_generations, close
from tests.inference.precisions import PRECISIONS, ROUNDING, assert_rows_agree, backend_in

QUESTION = Prompt((Message("user", "A farmer has 3 cows and 4 hens. How many legs in all?"),))
OTHER = Prompt((Message("user", "Name two colours of the rainbow."),))
UNIQUE = Prompt((Message("user", "Say hello."),))


@pytest.fixture(params=PRECISIONS)
def precision(request) -> str:
    """Each exactness test runs in both precisions."""
    return str(request.param)


@pytest.fixture
def source(embedded_backend, precision) -> TransformersBackend:
    """The embedded model in the test's precision."""
    return backend_in(embedded_backend, precision)


def _fresh(embedded_backend, *, fork: bool = True) -> TransformersBackend:
    """A backend on the same weights with an empty session store."""
    model, tokenizer = embedded_backend.model, embedded_backend.tokenizer
    return TransformersBackend(model, tokenizer, name="transformers/test", fork_prefixes=fork)


def _requests(prompts, max_tokens=8, **params) -> list[GenerationRequest]:
    params.setdefault("logprobs", True)
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


def test_k_identical_greedy_requests_equal_one_request(source, precision):
    alone = _fresh(source).generate(_requests([QUESTION]))[0]
    four = _fresh(source).generate(_requests([QUESTION] * 4))
    assert_rows_agree(four, [alone] * 4, precision)


def test_k_identical_prompts_are_prefilled_once(embedded_backend):
    length = len(embedded_backend.render(QUESTION.messages))
    forked, unforked = _fresh(embedded_backend), _fresh(embedded_backend, fork=False)
    with _fed(forked) as once:
        forked.generate(_requests([QUESTION] * 4, max_tokens=3))
    with _fed(unforked) as each:
        unforked.generate(_requests([QUESTION] * 4, max_tokens=3))
    assert sum(once) == length
    assert sum(each) == 4 * length


def test_the_same_prompt_again_in_a_batch_feeds_nothing_new(source, precision):
    backend = _fresh(source)
    alone = backend.generate(_requests([QUESTION]))[0]
    with _fed(backend) as fed:
        four = backend.generate(_requests([QUESTION] * 4))
    assert sum(fed) == 0
    assert_rows_agree(four, [alone] * 4, precision)


def test_seeded_samples_differ_and_match_unforked_ones(source, precision):
    prompts = [QUESTION] * 4
    params = {"temperature": 1.0, "max_tokens": 12, "logprobs": True}
    requests = [
        GenerationRequest(p, SamplingParams(**params, seed=seed), 12)
        for seed, p in enumerate(prompts)
    ]
    forked = _fresh(source).generate(requests)
    assert len(set(_texts(forked))) > 1
    want = _fresh(source, fork=False).generate(requests)
    assert_rows_agree(forked, want, precision, greedy=False)


def test_a_mixed_batch_is_forked_per_group_and_equals_the_unforked_batch(source, precision):
    prompts = [QUESTION, OTHER, QUESTION, UNIQUE, OTHER, QUESTION]
    render = source.render
    widest = max(len(render(p.messages)) for p in prompts)
    forked, unforked = _fresh(source), _fresh(source, fork=False)
    with _fed(forked) as fed:
        got = forked.generate(_requests(prompts))
    assert sum(fed) == 3 * widest  # three distinct prompts, left-padded to the longest
    want = unforked.generate(_requests(prompts))
    assert_rows_agree(got, want, precision)
    assert_same_generations([got[0], got[0], got[1]], [got[2], got[5], got[4]])


@pytest.mark.parametrize("fork", [True, False])
def test_forked_rows_own_their_caches_and_continue_independently(source, precision, fork):
    backend = _fresh(source, fork=fork)
    requests = [
        GenerationRequest(QUESTION, SamplingParams(temperature=1.0, seed=seed, logprobs=True), 6)
        for seed in range(3)
    ]
    first = backend.generate(requests)
    caches = [s.cache for s in backend.sessions]
    pointers = {layer.keys.data_ptr() for cache in caches for layer in cache.layers}
    assert len(pointers) == sum(len(cache.layers) for cache in caches)
    follow = [
        GenerationRequest(
            Prompt(QUESTION.messages, g.text, g.token_ids), SamplingParams(logprobs=True), 6
        )
        for g in first
    ]
    together = backend.generate(follow)
    reference = _fresh(source, fork=False)
    reference.generate(requests)
    assert_rows_agree(together, reference.generate(follow), precision)
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


def test_nested_rows_decode_as_each_request_alone(source, precision, response_ids):
    prompts = _boundaries(source, response_ids)
    got = _fresh(source).generate(_requests(prompts))
    unforked = _fresh(source, fork=False).generate(_requests(prompts))
    alone = [_fresh(source).generate(_requests([prompt]))[0] for prompt in prompts]
    assert_rows_agree(got, alone, precision)
    assert_rows_agree(got, unforked, precision)
    if precision == "float32":
        for generation, other in zip(got, unforked, strict=True):
            assert generation.logprobs == close(other.logprobs)


def test_nested_rows_keep_sessions_as_if_fed_themselves(source, precision, response_ids):
    prompts = _boundaries(source, response_ids)
    forked, unforked = _fresh(source), _fresh(source, fork=False)
    forked.generate(_requests(prompts, max_tokens=4))
    unforked.generate(_requests(prompts, max_tokens=4))
    sessions = {s.prompt_length: s for s in forked.sessions}
    references = {s.prompt_length: s for s in unforked.sessions}
    assert sorted(sessions) == sorted(references) and len(sessions) == len(prompts)
    for length, session in sessions.items():
        reference = references[length]
        assert session.cache.get_seq_length() == len(session.ids)
        if precision == "float32":
            # The suite's FLOAT_TOLERANCE holds for the raw cache too: its keys and values reach
            # about 20 in size (logits 31), and float32 keeps about 7 digits: a sum taken in
            # another order moves them by some 1e-6, inside 1e-4 (forked and unforked rows were
            # bitwise equal on an AMD EPYC); keys one position off differ by over 1.6 in a layer.
            assert session.tokens == reference.tokens
            assert torch.allclose(
                session.prompt_logits, reference.prompt_logits, atol=FLOAT_TOLERANCE
            )
            for layer, other in zip(session.cache.layers, reference.cache.layers, strict=True):
                assert torch.allclose(layer.keys, other.keys, atol=FLOAT_TOLERANCE)
                assert torch.allclose(layer.values, other.values, atol=FLOAT_TOLERANCE)
            continue
        # bfloat16: the same distribution and the same prompt cache, up to rounding (rows that
        # decoded apart differ after the prompt); a misaligned row would be off by its size
        mine, theirs = (
            t.float().log_softmax(-1) for t in (session.prompt_logits, reference.prompt_logits)
        )
        assert (mine - theirs).abs().max() < ROUNDING
        width = session.prompt_length
        for layer, other in zip(session.cache.layers, reference.cache.layers, strict=True):
            for a, b in ((layer.keys, other.keys), (layer.values, other.values)):
                a, b = a[..., :width, :].float(), b[..., :width, :].float()
                assert (a - b).abs().mean() < 0.05 * b.abs().mean()
    tensors = [t for s in forked.sessions for x in s.cache.layers for t in (x.keys, x.values)]
    assert len({t.untyped_storage().data_ptr() for t in tensors}) == len(tensors)


def test_seeded_rollouts_from_nested_prefixes_match_unforked_ones(source, precision, response_ids):
    prompts = [p for p in _boundaries(source, response_ids) for _ in range(2)]
    requests = [
        GenerationRequest(p, SamplingParams(temperature=1.0, seed=seed, logprobs=True), 10)
        for seed, p in enumerate(prompts)
    ]
    forked = _fresh(source)
    with _fed(forked) as fed:
        got = forked.generate(requests)
    assert fed == [len(source.prompt_ids(prompts[-1]))]
    assert len({g.token_ids for g in got}) > len(CUTS)
    want = _fresh(source, fork=False).generate(requests)
    assert_rows_agree(got, want, precision, greedy=False)


def test_a_batch_of_nested_identical_and_unrelated_prompts(source, precision, response_ids):
    chain = _boundaries(source, response_ids, cuts=(0, 9, 17))
    prompts = [chain[1], OTHER, chain[0], chain[2], UNIQUE, chain[1], OTHER, chain[0]]
    widest = max(len(source.prompt_ids(p)) for p in (chain[2], OTHER, UNIQUE))
    forked = _fresh(source)
    with _fed(forked) as fed:
        got = forked.generate(_requests(prompts))
    assert fed == [3 * widest]  # the chain's longest, OTHER and UNIQUE
    want = _fresh(source, fork=False).generate(_requests(prompts))
    assert_rows_agree(got, want, precision)
    assert_same_generations([got[0], got[2], got[1]], [got[5], got[7], got[6]])
    follow = [
        GenerationRequest(
            Prompt(p.messages, p.continuation + g.text), SamplingParams(logprobs=True), 4
        )
        for p, g in zip(prompts, got, strict=True)
    ]
    reference = _fresh(source, fork=False)
    reference.generate(_requests(prompts))
    assert_rows_agree(forked.generate(follow), reference.generate(follow), precision)


@pytest.mark.slow
def test_get_backend_passes_fork_prefixes_on():
    from llenvs.inference import get_backend

    backend = get_backend("transformers", fork_prefixes=False, progress=False)
    assert isinstance(backend, TransformersBackend) and backend.fork_prefixes is False
    assert get_backend("transformers", progress=False).fork_prefixes is True
