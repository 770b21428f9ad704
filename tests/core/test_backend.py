import pytest

from llenvs.core import (
    FinishReason,
    Generation,
    GenerationRequest,
    Message,
    Prompt,
    SamplingParams,
)


def test_sampling_params_defaults_are_greedy():
    params = SamplingParams(max_tokens=2048)
    assert (params.temperature, params.top_p, params.top_k, params.stop) == (0.0, 1.0, None, ())


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_tokens": 0}, "max_tokens must be > 0, got 0"),
        ({"max_tokens": -5}, "max_tokens must be > 0, got -5"),
        ({"temperature": -0.1}, "temperature must be >= 0"),
        ({"top_p": 0.0}, r"top_p must be in \(0, 1\]"),
        ({"top_k": 0}, "top_k must be > 0"),
        ({"stop": ("",)}, "non-empty"),
    ],
)
def test_sampling_params_fail_early(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SamplingParams(**kwargs)


def test_sampling_params_refuse_a_bare_stop_string():
    with pytest.raises(TypeError, match="tuple of strings"):
        SamplingParams(stop="</answer>")  # type: ignore[arg-type]


def test_message_role_is_checked():
    with pytest.raises(ValueError, match="system, user or assistant"):
        Message("tool", "x")  # type: ignore[arg-type]


def test_prompt_needs_a_message_and_request_a_budget():
    with pytest.raises(ValueError, match="at least one message"):
        Prompt(())
    with pytest.raises(ValueError, match="max_tokens must be > 0"):
        GenerationRequest(Prompt((Message("user", "q"),)), SamplingParams(), 0)


def test_generation_needs_one_logprob_per_token():
    with pytest.raises(ValueError, match="one each"):
        Generation("ab", FinishReason.STOP, (1, 2), (0.0,))
