"""The transformers backend on the embedded model: loading, ids, stops, rollback, logprobs."""

from pathlib import Path

import pytest

from llenvs.core import (
    FinishReason,
    GenerationRequest,
    LLMSegmenter,
    Message,
    Prompt,
    SamplingParams,
    SentenceSegmenter,
)
from llenvs.core.errors import BackendError
from llenvs.evaluation.episodes import same_tokenizer
from llenvs.inference import get_backend
from llenvs.inference._backends.embedded_model import embedded_model_path
from tests.floats import assert_same_generations
from tests.inference.precisions import backend_in

QUESTION = (Message("user", "How many legs do 3 dogs and 2 birds have? Think step by step."),)


def _call(backend, prompt, max_tokens, **params):
    params.setdefault("max_tokens", 128)
    request = GenerationRequest(prompt, SamplingParams(**params), max_tokens)
    return backend.generate([request])[0]


def test_a_local_folder_loads_by_path_and_shares_the_tokenizer(embedded_backend):
    folder = embedded_model_path()
    backend = get_backend(f"transformers/{folder}", dtype="bfloat16")
    assert backend.name == f"transformers/{folder}"
    assert same_tokenizer(backend.tokenizer, embedded_backend.tokenizer)
    prompt = Prompt(QUESTION)
    same = backend_in(embedded_backend, "bfloat16")  # the same weights in the same precision
    assert _call(backend, prompt, 6).text == _call(same, prompt, 6).text


def test_a_missing_model_folder_is_named():
    with pytest.raises(BackendError, match="no model folder at /nowhere/model"):
        get_backend("transformers//nowhere/model")


def test_segments_from_token_ids_equal_one_call(embedded_backend):
    prompt = Prompt(QUESTION)
    one = _call(embedded_backend, prompt, 40)
    text, ids = "", ()
    while len(ids) < 40:
        step = _call(embedded_backend, Prompt(QUESTION, text, ids), min(7, 40 - len(ids)))
        text, ids = text + step.text, ids + step.token_ids
        if step.finish_reason is not FinishReason.LENGTH:
            break
    assert (text, ids) == (one.text, one.token_ids)


def test_stop_sequence_is_kept_and_cut_even_across_calls(embedded_backend):
    prompt = Prompt(QUESTION)
    full = _call(embedded_backend, prompt, 24).text
    stop = full[10:14]
    cut = _call(embedded_backend, prompt, 24, stop=(stop,))
    assert cut.finish_reason is FinishReason.STOP
    assert cut.text == full[: full.index(stop) + len(stop)]
    # the stop sequence begins in the text already generated and ends in this call
    head = full[:12]
    rest = _call(embedded_backend, Prompt(QUESTION, head), 24, stop=(stop,))
    assert rest.finish_reason is FinishReason.STOP and (head + rest.text).endswith(stop)


def test_boundary_keeps_the_overshoot(embedded_backend):
    find = SentenceSegmenter().find_boundary
    request = GenerationRequest(Prompt(QUESTION), SamplingParams(), 64, stop_at=find)
    generation = embedded_backend.generate([request])[0]
    assert generation.finish_reason is FinishReason.BOUNDARY
    assert find(generation.text) is not None and find(generation.text) <= len(generation.text)


def test_re_tokenised_text_reuses_the_models_own_tokens(embedded_backend):
    prompt = Prompt(QUESTION)
    generated = _call(embedded_backend, prompt, 20)
    head = embedded_backend.render(QUESTION)
    # the caller forces its own text after the first 10 tokens' text (as ForceAction does)
    spelled = embedded_backend.tokenizer.decode(list(generated.token_ids[:10]))
    # "§" starts no token the model generated here, so the reuse stops exactly at 10 tokens
    ids = embedded_backend.prompt_ids(Prompt(QUESTION, spelled + "§ Forced."))
    assert ids[: len(head) + 10] == head + list(generated.token_ids[:10])
    assert ids[len(head) + 10 :] == embedded_backend.encode("§ Forced.")


def test_logprobs_one_per_token_greedy_is_the_most_likely(embedded_backend):
    generation = _call(embedded_backend, Prompt(QUESTION), 8, logprobs=True)
    assert generation.logprobs is not None and len(generation.logprobs) == 8
    assert all(lp <= 0 for lp in generation.logprobs)
    assert max(generation.logprobs) > -2.0


def test_seeded_sampling_is_reproducible_and_segment_independent(embedded_backend):
    params = {"temperature": 0.9, "top_p": 0.95, "top_k": 50, "seed": 7}
    one = _call(embedded_backend, Prompt(QUESTION), 16, **params)
    again = _call(embedded_backend, Prompt(QUESTION), 8, **params)
    more = _call(embedded_backend, Prompt(QUESTION, again.text, again.token_ids), 8, **params)
    assert again.token_ids + more.token_ids == one.token_ids[: len(again.token_ids) * 2]


def test_a_batch_returns_one_generation_per_request_and_continues(embedded_backend):
    prompts = [Prompt((Message("user", q),)) for q in ("What is 3 + 4?", "Name a colour.")]
    alone = _call(embedded_backend, prompts[0], 6)
    first = embedded_backend.generate(
        [GenerationRequest(p, SamplingParams(logprobs=True), 6) for p in prompts]
    )
    assert [len(g.token_ids) for g in first] == [6, 6]
    assert all(g.logprobs is not None and len(g.logprobs) == 6 for g in first)
    follow = [Prompt(p.messages, g.text, g.token_ids) for p, g in zip(prompts, first, strict=True)]
    second = embedded_backend.generate([GenerationRequest(p, SamplingParams(), 6) for p in follow])
    assert len(second) == 2 and all(g.finish_reason for g in second)
    # a prompt the batch touched starts afresh at batch size 1: the same tokens as before
    assert_same_generations([_call(embedded_backend, prompts[0], 6)], [alone])


def test_llm_segmenter_on_the_real_model_stays_lossless(embedded_backend):
    text = "There are 3 dogs. Dogs have 4 legs, so 3 × 4 = 12. The answer is 12."
    segmenter = LLMSegmenter(embedded_backend, max_tokens=64)
    pieces = segmenter.segment(text)
    assert "".join(pieces) == text and pieces


def test_the_name_a_trace_records_loads_the_embedded_model(monkeypatch):
    import llenvs.inference._backends.transformers_loading as module

    seen = {}
    monkeypatch.setattr(
        module, "load_backend", lambda path, **kwargs: seen.update(kwargs, path=path)
    )
    # The converted folder's path, without converting (a cold cache would load the model).
    monkeypatch.setattr(module, "embedded_model_path", lambda **_: Path("/cache/embedded"))
    module.make_backend("SmolLM2-135M-Instruct")
    assert seen["path"] == Path("/cache/embedded")
    assert seen["name"] == "transformers/SmolLM2-135M-Instruct"


def test_the_default_precision_is_float32_on_every_cpu(embedded_backend):
    """Exact branches and forks hold in float32; a CPU with native bfloat16 gets it too."""
    import torch

    from llenvs.inference._backends import transformers_loading

    assert embedded_backend.model.dtype == torch.float32
    assert transformers_loading.default_dtype(torch.device("cpu")) == torch.float32
