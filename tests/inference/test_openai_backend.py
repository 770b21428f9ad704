"""The openai backend against a real vLLM server serving the embedded SmolLM2 on loopback.

Invariant 3 in completions mode: token-id continuation gives the same tokens as one call, for
16-token segments and for a segmenter's ``stop_at``. Chat mode reads one stream across segments.
Interventions, ``run_batch`` over 16 tasks, and clear errors that name the server.
"""

from __future__ import annotations

import time
from functools import cache

import pytest
from scipy.stats import percentileofscore

from llenvs.core import (
    FinishReason,
    GenerationRequest,
    Message,
    Prompt,
    Resample,
    SamplingParams,
    SegmentedEnvironment,
    SentenceSegmenter,
)
from llenvs.core.errors import BackendError, PermanentBackendError
from llenvs.core.registry import environment_registry
from llenvs.core.run_spec import RunSpec
from llenvs.core.segmenters import TokenSegmenter
from llenvs.evaluation import (
    COMPLETE,
    BranchRequest,
    ForceAction,
    SegmentedTrajectoryRunner,
    branch,
)
from llenvs.evaluation.branching import on_policy
from llenvs.evaluation.episodes import TokenContinuationStrategy, result_trace
from llenvs.inference import HTTPOptions, backend_options, backend_spec, get_backend
from llenvs.inference._backends.embedded_model import embedded_model_path
from llenvs.traces import read_traces
from tests.analysis.conftest import SAMPLE
from tests.floats import CROSS_IMPLEMENTATION_TOLERANCE

pytestmark = pytest.mark.vllm

MAX_TOKENS = 48
QUESTIONS = (
    "What is 17 * 23? Think step by step.",
    "Name three planets and one fact about each.",
    "How many legs do 3 spiders and 2 dogs have?",
    "Write a haiku about rain.",
    "Explain why the sky is blue in two sentences.",
    "List the first five prime numbers and add them up.",
    "A train goes 60 km in 45 minutes. What is its speed in km/h?",
    "Give two tips for learning a new language.",
)


@cache
def _base():
    return environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=20, seed=42)


def _backend(server, **options):
    folder = str(embedded_model_path(progress=False))
    return get_backend("openai/smollm2", base_url=server.base_url, tokenizer=folder, **options)


@pytest.fixture(scope="module")
def completions(vllm_server):
    backend = _backend(vllm_server)
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def chat(vllm_server):
    backend = _backend(vllm_server, mode="chat")
    yield backend
    backend.close()


def _request(question, params=None, max_tokens=MAX_TOKENS, continuation="", ids=None, stop_at=None):
    prompt = Prompt((Message("user", question),), continuation, ids)
    return GenerationRequest(prompt, params or SamplingParams(), max_tokens, stop_at)


def _runner(backend, segmenter=None, max_tokens=MAX_TOKENS):
    env = SegmentedEnvironment(_base(), segmenter or SentenceSegmenter())
    return SegmentedTrajectoryRunner(env, backend, SamplingParams(max_tokens=max_tokens))


def _one_shot_text(backend, runner, task_index):
    state, _ = runner.environment.reset(options={"task_index": task_index})
    observation = state.observation
    system = (
        () if observation.system_prompt is None else (Message("system", observation.system_prompt),)
    )
    prompt = Prompt((*system, Message("user", observation.prompt)))
    request = GenerationRequest(prompt, runner.sampling_params, runner.sampling_params.max_tokens)
    return backend.generate([request])[0].text


def test_completions_generate_reads_the_servers_token_ids(completions):
    generation = completions.generate([_request(QUESTIONS[0], max_tokens=8)])[0]
    assert completions.name == "openai/smollm2" and completions._token_ids is True
    assert generation.finish_reason is FinishReason.LENGTH and len(generation.token_ids) == 8
    assert completions.chat.decode(generation.token_ids) == generation.text


def test_16_token_segments_from_ids_equal_one_shot(completions):
    """Invariant 3: every prompt's 16-token segments are the one-shot token sequence."""
    budget = 96
    one_shot = completions.generate([_request(q, max_tokens=budget) for q in QUESTIONS])
    identical = 0
    for question, whole in zip(QUESTIONS, one_shot, strict=True):
        ids: list[int] = []
        text = ""
        while len(ids) < budget:
            size = min(16, budget - len(ids))
            request = _request(question, max_tokens=size, continuation=text, ids=tuple(ids))
            part = completions.generate([request])[0]
            ids += part.token_ids
            text += part.text
            if part.finish_reason is FinishReason.STOP:
                break
        identical += tuple(ids) == whole.token_ids and text == whole.text
    assert identical == len(QUESTIONS)


@pytest.mark.parametrize("kind", ["sentence", "token"])
def test_segmented_runs_equal_one_shot(completions, smollm2_tokenizer, kind, monkeypatch):
    if kind == "sentence":
        segmenter = SentenceSegmenter()
    else:
        segmenter = TokenSegmenter(tokenizer=smollm2_tokenizer, token_size=16)
    runner = _runner(completions, segmenter)
    if kind == "token":
        assert isinstance(runner._new_strategy(), TokenContinuationStrategy)
    # The backend asks the server once whether it takes token ids (its first call): done here,
    # before the count, whichever test of the module ran first.
    completions.generate([_request(QUESTIONS[0], max_tokens=1)])
    create = completions._client.completions.create
    requests = []
    monkeypatch.setattr(
        completions._client.completions, "create", lambda **a: requests.append(a) or create(**a)
    )
    segments = 0
    for task_index in (0, 1, 2):
        result = runner.run_trajectory(task_index)
        assert result.error is None
        assert result.text == _one_shot_text(completions, runner, task_index), task_index
        segments += len(result.trajectory)
    assert segments > 3
    if kind == "sentence":  # each trajectory's sentences are read from one streamed request
        assert len(requests) == 3 * 2, len(requests)  # and one for each one-shot reference


def test_stop_sequences_and_logprobs(completions):
    params = SamplingParams(stop=(".",), logprobs=True)
    generation = completions.generate([_request(QUESTIONS[2], params)])[0]
    assert generation.finish_reason is FinishReason.STOP and generation.text.endswith(".")
    assert generation.logprobs is not None and len(generation.logprobs) == len(generation.token_ids)
    assert all(lp <= 0 for lp in generation.logprobs)


def test_seeded_sampling_is_reproducible(completions):
    params = SamplingParams(temperature=1.0, seed=7)
    first, second = completions.generate([_request(QUESTIONS[3], params, 24)] * 2)
    assert first.token_ids == second.token_ids


def test_chat_mode_reads_one_stream_across_segments(chat, completions):
    runner = _runner(chat)
    result = runner.run_trajectory(0)
    assert result.error is None and len(result.trajectory) > 1
    assert result.text == _one_shot_text(chat, runner, 0)
    # the server renders the same template: chat one-shot is the completions one-shot
    assert result.text == _one_shot_text(completions, _runner(completions), 0)


def test_chat_mode_continues_after_a_forced_segment(chat):
    forced = "Each dog has 4 legs. "
    runner = _runner(chat)
    result = runner.run_trajectory(
        0, step_callback=lambda s: ForceAction(forced) if s.info["segment_index"] == 1 else None
    )
    texts = [t.action.text for t in result.trajectory]
    assert result.error is None and texts[1] == forced and len(texts) > 2


def test_interventions_force_feedback_complete_prefix(completions):
    runner = _runner(completions)
    whole = _one_shot_text(completions, runner, 0)
    complete = runner.run_trajectory(0, step_callback=lambda step: COMPLETE)
    assert complete.text == whole

    forced = "Each dog has 4 legs. "
    force = runner.run_trajectory(
        0, step_callback=lambda s: ForceAction(forced) if s.info["segment_index"] == 1 else None
    )
    assert [t.action.text for t in force.trajectory][1] == forced
    assert force.trajectory[1].info["forced"] and len(force.trajectory) > 2

    feedback = "Count the legs of each animal separately."
    advised = runner.run_trajectory(
        0, step_callback=lambda s: feedback if s.info["segment_index"] == 1 else None
    )
    assert Message("user", feedback) in advised.messages
    assert [m.role for m in advised.messages][-3:] == ["assistant", "user", "assistant"]

    prefix = "Let me count the legs of each animal. "
    replayed = runner.run_trajectory(0, prefix=prefix, then=COMPLETE)
    assert replayed.trajectory[0].info["replayed"] and replayed.text.startswith(prefix)
    assert len(replayed.trajectory) > 1


def test_a_greedy_resample_branch_reproduces_its_parent(completions):
    runner = _runner(completions)
    result = runner.run_trajectory(0)
    parent = result_trace(
        result,
        runner.environment,
        RunSpec(model=backend_spec(completions), sampling=runner.sampling_params),
        model_name=completions.name,
    )
    [child] = branch(BranchRequest(parent, 1, Resample()), completions)
    # the child's budget does not count the replayed segment, so it may run further
    assert child.response.startswith(parent.response)


def test_run_batch_over_16_tasks(completions):
    runner = _runner(completions, max_tokens=32)
    started = time.perf_counter()
    results = runner.run_batch(list(range(16)))
    elapsed = time.perf_counter() - started
    assert [r.metadata["task_index"] for r in results] == list(range(16))
    tokens = 0
    for result in results:
        assert result.error is None and result.text
        assert "".join(t.action.text for t in result.trajectory) == result.text
        tokens += result.metadata["generated_tokens"]
    print(f"run_batch: 16 tasks, {tokens} tokens in {elapsed:.1f} s")


def test_the_trace_records_the_server_and_not_the_key(vllm_server, monkeypatch):
    monkeypatch.setenv("LLENVS_TEST_KEY", "sk-very-secret-123")
    backend = _backend(vllm_server, api_key_env="LLENVS_TEST_KEY")
    options = backend_options(backend)
    assert options["base_url"] == vllm_server.base_url and options["mode"] == "completions"
    assert "sk-very-secret-123" not in repr(backend) + repr(options)
    backend.close()


def test_an_unreachable_server_is_named_and_transient(vllm_server, monkeypatch):
    monkeypatch.setenv("LLENVS_TEST_KEY", "sk-very-secret-123")
    folder = str(embedded_model_path(progress=False))
    backend = get_backend(
        "openai/smollm2",
        base_url="http://127.0.0.1:9/v1",
        tokenizer=folder,
        api_key_env="LLENVS_TEST_KEY",
        http=HTTPOptions(max_retries=0),
    )
    with pytest.raises(BackendError) as caught:
        backend.generate([_request(QUESTIONS[0], max_tokens=4)])
    message = str(caught.value)
    assert "http://127.0.0.1:9/v1" in message and "openai/smollm2" in message
    assert "cannot connect" in message and "sk-very-secret" not in message
    assert not isinstance(caught.value, PermanentBackendError)
    assert caught.value.__cause__ is None


def test_an_unknown_model_is_a_permanent_error_naming_it(vllm_server):
    backend = get_backend(
        "openai/no-such-model",
        base_url=vllm_server.base_url,
        tokenizer=str(embedded_model_path(progress=False)),
        token_ids=True,
    )
    with pytest.raises(PermanentBackendError, match=r"openai/no-such-model at http://127\.0\.0\.1"):
        backend.generate([_request(QUESTIONS[0], max_tokens=4)])
    backend.close()


def test_chat_mode_feedback_and_complete(chat):
    runner = _runner(chat)
    whole = _one_shot_text(chat, runner, 0)
    assert runner.run_trajectory(0, step_callback=lambda step: COMPLETE).text == whole
    feedback = "Count the legs of each animal separately."
    advised = runner.run_trajectory(
        0, step_callback=lambda s: feedback if s.info["segment_index"] == 1 else None
    )
    assert advised.error is None and Message("user", feedback) in advised.messages
    assert [m.role for m in advised.messages][-3:] == ["assistant", "user", "assistant"]
    assert len(advised.trajectory) > 1


def test_text_prompts_when_the_server_is_not_asked_for_ids(vllm_server, completions):
    text = _backend(vllm_server, token_ids=False)
    requests = [_request(q, max_tokens=24) for q in QUESTIONS[:4]]
    from_text = text.generate(requests)
    from_ids = completions.generate(requests)
    assert [g.text for g in from_text] == [g.text for g in from_ids]
    assert all(g.token_ids for g in from_text)
    text.close()


def test_max_tokens_is_capped_to_the_servers_context_window(completions):
    # The test server runs with --max-model-len 2048: a prompt of ~2000 tokens asking for 256
    # more would be refused (400); capped, the call generates what fits and ends at LENGTH.
    completions.generate([_request(QUESTIONS[0], max_tokens=1)])  # the first call probes
    assert completions.context_length == 2048

    def prompt(repeats):
        return Prompt((Message("user", "one two three four five six seven eight " * repeats),))

    repeats = 1
    while 2048 - len(completions.chat.prompt_ids(prompt(repeats))) >= 256:
        repeats += 8
    room = 2048 - len(completions.chat.prompt_ids(prompt(repeats)))
    assert 0 < room < 256
    request = GenerationRequest(prompt(repeats), SamplingParams(temperature=0.0), 256)
    [generation] = completions.generate([request])
    assert len(generation.token_ids) <= room
    full = prompt(2 * repeats)  # past the window: nothing to generate, and no error
    [empty] = completions.generate([GenerationRequest(full, SamplingParams(), 16)])
    assert empty.token_ids == () and empty.finish_reason is FinishReason.LENGTH


def test_chat_mode_without_the_models_tokenizer(vllm_server, chat):
    """A hosted model's tokenizer is not at hand: chat mode counts tokens with tiktoken."""
    from llenvs.inference._backends.chat_tokenizer import CountingTokens

    hosted = get_backend("openai/smollm2", base_url=vllm_server.base_url, mode="chat")
    assert isinstance(hosted.counter, CountingTokens)  # "smollm2" names no tokenizer here
    result = _runner(hosted).run_trajectory(0)
    reference = _runner(chat).run_trajectory(0)
    texts = [t.action.text for t in result.trajectory]
    assert result.error is None and len(texts) > 1
    assert texts[0] == reference.trajectory[0].action.text  # the server's text, as read with it
    hosted.close()


def test_a_text_is_scored_from_the_servers_prompt_logprobs_as_the_local_model_scores_it(
    completions, chat, embedded_backend
):
    prompt = Prompt((Message("user", "Count to three."),), "One, two,")
    items = [
        (prompt, " three."),
        (prompt, " purple."),
        (Prompt((Message("user", "Hi"),)), "Hello!"),
    ]
    served, local = completions.score(items), embedded_backend.score(items)
    for remote, here in zip(served, local, strict=True):
        assert remote.token_ids == here.token_ids  # the same tokens, exactly
        # float32 on both, through two implementations: the same within 5e-3 per token
        assert remote.logprobs == pytest.approx(here.logprobs, abs=CROSS_IMPLEMENTATION_TOLERANCE)
    assert served[0].mean > served[1].mean
    assert chat.capabilities.score is None  # chat mode: hosted APIs give no prompt logprobs
    # on-policy through the server: the sample trace's own segment against the model's own
    trace = next(iter(read_traces(SAMPLE)))
    found = on_policy(trace, 1, trace.segments[1].text, completions, samples=4)
    assert found.samples == len(found.sample_means) == 4
    # its place among the 4 continuations' scores, ranked by scipy (ties half, NaN out)
    rank = percentileofscore(found.sample_means, found.mean_logprob, kind="mean", nan_policy="omit")
    assert found.percentile == pytest.approx(rank)
    # the same text, scored in another call (other batches on the server): within 5e-3
    assert found.original == pytest.approx(found.mean_logprob, abs=CROSS_IMPLEMENTATION_TOLERANCE)
