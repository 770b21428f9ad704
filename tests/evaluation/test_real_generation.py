"""The runner on real generation (the embedded SmolLM2 through the transformers backend).

Invariant 3: greedy segmented output equals one-shot output byte for byte at batch size 1, for
the Sentence and Token segmenters. Interventions, prefixes, ``run_batch`` and the guide's manual
loop on real text. Generation stays short (at most 64 tokens, stop at ``</answer>``).
"""

from functools import cache

import pytest

from llenvs.core import (
    Action,
    GenerationRequest,
    Message,
    Prompt,
    SamplingParams,
    SegmentedEnvironment,
    SentenceSegmenter,
    TokenSegmenter,
)
from llenvs.core.registry import environment_registry
from llenvs.evaluation import COMPLETE, ForceAction, SegmentedTrajectoryRunner
from llenvs.evaluation.episodes import TokenContinuationStrategy

MAX_TOKENS = 64
TASKS = (0, 1, 2)


@cache
def _base():
    return environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=10, seed=42)


def _messages(env, task_index):
    state, _ = env.reset(options={"task_index": task_index})
    observation = state.observation
    system = (
        () if observation.system_prompt is None else (Message("system", observation.system_prompt),)
    )
    return (*system, Message("user", observation.prompt))


_ONE_SHOT: dict[int, str] = {}


def _one_shot(backend, runner, task_index):
    """The whole response in one call (computed once per task)."""
    if task_index not in _ONE_SHOT:
        prompt = Prompt(_messages(runner.environment, task_index))
        request = GenerationRequest(prompt, runner.sampling_params, MAX_TOKENS)
        _ONE_SHOT[task_index] = backend.generate([request])[0].text
    return _ONE_SHOT[task_index]


def _runner(backend, segmenter, max_tokens=MAX_TOKENS):
    env = SegmentedEnvironment(_base(), segmenter)
    return SegmentedTrajectoryRunner(env, backend, SamplingParams(max_tokens=max_tokens))


@pytest.mark.parametrize("kind", ["sentence", "token"])
def test_segmented_greedy_output_equals_one_shot(embedded_backend, smollm2_tokenizer, kind):
    if kind == "sentence":
        segmenter = SentenceSegmenter()
    else:
        # the GGUF-loaded tokenizer is another object than the backend's: matched by vocabulary
        segmenter = TokenSegmenter(tokenizer=smollm2_tokenizer, token_size=16)
    runner = _runner(embedded_backend, segmenter)
    if kind == "token":
        assert isinstance(runner._new_strategy(), TokenContinuationStrategy)
    segments = 0
    for task_index in TASKS:
        result = runner.run_trajectory(task_index)
        assert result.text == _one_shot(embedded_backend, runner, task_index), task_index
        segments += len(result.trajectory)
        if kind == "token":
            assert all(len(t.info["token_ids"]) <= 16 for t in result.trajectory)
    assert segments > len(TASKS)  # some task was generated in several segments


def test_complete_after_the_first_segment_equals_one_shot(embedded_backend):
    runner = _runner(embedded_backend, SentenceSegmenter())
    result = runner.run_trajectory(0, step_callback=lambda step: COMPLETE)
    assert result.text == _one_shot(embedded_backend, runner, 0)
    assert [t.info.get("one_shot", False) for t in result.trajectory][1:] == [True] * (
        len(result.trajectory) - 1
    )


def test_force_action_rolls_back_and_generation_goes_on(embedded_backend):
    runner = _runner(embedded_backend, SentenceSegmenter(), max_tokens=48)
    forced = "Each dog has 4 legs. "

    def force_second(step):
        return ForceAction(forced) if step.info["segment_index"] == 1 else None

    result = runner.run_trajectory(0, step_callback=force_second)
    texts = [t.action.text for t in result.trajectory]
    assert texts[1] == forced and result.trajectory[1].info["forced"]
    assert len(texts) > 2 and result.text.startswith(texts[0] + forced)
    # the first segment and the forced text are continued faithfully: a one-call continuation
    # of the same text gives the same next segment
    prompt = Prompt(_messages(runner.environment, 0), texts[0] + forced)
    request = GenerationRequest(
        prompt, runner.sampling_params, 48, SentenceSegmenter().find_boundary
    )
    again = embedded_backend.generate([request])[0].text
    assert again.startswith(texts[2].rstrip()) or texts[2].startswith(again.rstrip())


def test_feedback_opens_a_new_turn_on_real_generation(embedded_backend):
    runner = _runner(embedded_backend, SentenceSegmenter(), max_tokens=48)
    feedback = "Count the legs of each animal separately."

    def advise(step):
        return feedback if step.info["segment_index"] == 1 else None

    result = runner.run_trajectory(0, step_callback=advise)
    roles = [m.role for m in result.messages]
    assert Message("user", feedback) in result.messages
    assert roles[-3:] == ["assistant", "user", "assistant"]
    assert result.text.startswith(result.trajectory[0].action.text)


def test_a_prefix_is_replayed_then_continued(embedded_backend):
    runner = _runner(embedded_backend, SentenceSegmenter(), max_tokens=32)
    prefix = "Let me count the legs of each animal. "
    result = runner.run_trajectory(0, prefix=prefix)
    assert result.trajectory[0].info["replayed"] and result.trajectory[0].action.text == prefix
    assert len(result.trajectory) > 1 and result.text.startswith(prefix)


def test_run_batch_on_four_tasks(embedded_backend):
    runner = _runner(embedded_backend, SentenceSegmenter(), max_tokens=48)
    results = runner.run_batch([0, 1, 2, 3])
    assert [r.metadata["task_index"] for r in results] == [0, 1, 2, 3]
    for result in results:
        assert result.text and 0 < result.metadata["generated_tokens"] <= 48
        assert "".join(t.action.text for t in result.trajectory) == result.text
        assert (
            sum(len(t.info.get("token_ids", ())) for t in result.trajectory)
            == (result.metadata["generated_tokens"])
        )


def test_the_guides_manual_loop_on_real_generation(embedded_backend):
    model = embedded_backend
    env = SegmentedEnvironment(_base(), SentenceSegmenter())
    state, _ = env.reset(options={"task_index": 0})
    accumulated = ""
    steps = 0
    while not state.metadata.is_terminal and steps < 6:
        partial = model.generate_until(
            state.observation.prompt + accumulated,
            stop_at=env.segmenter.find_boundary,
            max_tokens=32,
        )
        result = env.step(state, Action(text=partial))
        accumulated += partial
        state = result.next_state
        steps += 1
    final = env.finalize(state)
    assert final.terminated and accumulated
    # re-tokenised text continues from the model's own tokens: the loop's text is a prefix of
    # what one call generates for the same user turn
    prompt = Prompt((Message("user", state.observation.prompt),))
    request = GenerationRequest(prompt, SamplingParams(), len(model.encode(accumulated)) + 8)
    assert model.generate([request])[0].text.startswith(accumulated)
