import pytest

from llenvs.core import (
    BackendError,
    FinishReason,
    GenerationRequest,
    Message,
    Prompt,
    SamplingParams,
    SentenceSegmenter,
)
from llenvs.inference._backends.scripted import TOKEN_PATTERN, ScriptedBackend

USER = (Message("user", "How many legs?"),)
SCRIPT = "First, count. There are 2 dogs. So 8 legs. <answer>8</answer> Done."


def _request(continuation="", max_tokens=100, stop_at=None, **params):
    return GenerationRequest(
        Prompt(USER, continuation), SamplingParams(**params), max_tokens, stop_at
    )


def test_tokens_join_back_to_the_text():
    for text in [SCRIPT, "  a\n\n b ", "", "x=3.14;\tdone\n"]:
        assert "".join(TOKEN_PATTERN.findall(text)) == text


def test_plays_the_whole_script():
    generation = ScriptedBackend([SCRIPT]).generate([_request()])[0]
    assert generation.text == SCRIPT
    assert generation.finish_reason is FinishReason.STOP
    assert len(generation.token_ids) == len(TOKEN_PATTERN.findall(SCRIPT))
    assert generation.logprobs is None


def test_max_tokens_and_continuation_read_the_script_once():
    backend = ScriptedBackend([SCRIPT])
    text = ""
    while True:
        generation = backend.generate([_request(text, max_tokens=3)])[0]
        text += generation.text
        if generation.finish_reason is FinishReason.STOP:
            break
        assert generation.finish_reason is FinishReason.LENGTH
        assert len(generation.token_ids) == 3
    assert text == SCRIPT


def test_stop_at_stops_at_a_boundary_and_keeps_the_overshoot():
    find = SentenceSegmenter().find_boundary
    generation = ScriptedBackend([SCRIPT]).generate([_request(stop_at=find)])[0]
    assert generation.finish_reason is FinishReason.BOUNDARY
    boundary = find(generation.text)
    assert generation.text[:boundary] == "First, count. "
    assert generation.text.startswith("First, count. There")


def test_stop_sequences_are_kept_in_the_text():
    generation = ScriptedBackend([SCRIPT]).generate([_request(stop=("</answer>",))])[0]
    assert generation.text.endswith("<answer>8</answer>")
    assert generation.finish_reason is FinishReason.STOP


def test_logprobs_when_asked():
    generation = ScriptedBackend(["a b"]).generate([_request(logprobs=True)])[0]
    assert generation.logprobs == (0.0, 0.0)


def test_each_new_conversation_takes_the_next_output():
    backend = ScriptedBackend(["one", "two"])
    feedback = (*USER, Message("assistant", "one"), Message("user", "Try again."))
    first = backend.generate([_request()])[0]
    second = backend.generate([GenerationRequest(Prompt(feedback), SamplingParams(), 10)])[0]
    again = backend.generate([_request()])[0]
    assert (first.text, second.text, again.text) == ("one", "two", "one")
    assert len(backend.requests) == 3


def test_running_out_of_outputs_is_a_clear_error():
    backend = ScriptedBackend(["one"])
    backend.generate([_request()])
    other = GenerationRequest(Prompt((Message("user", "other"),)), SamplingParams(), 5)
    with pytest.raises(BackendError, match="1 output"):
        backend.generate([other])


def test_a_batch_is_served_in_order():
    backend = ScriptedBackend(["a.", "b."])
    prompts = [Prompt((Message("user", q),)) for q in ("1", "2")]
    generations = backend.generate([GenerationRequest(p, SamplingParams(), 5) for p in prompts])
    assert [g.text for g in generations] == ["a.", "b."]


def test_outputs_must_be_a_sequence_of_strings():
    with pytest.raises(TypeError):
        ScriptedBackend("abc")
