"""The scripted backend answers a conversation by its prompt when told the prompts' responses."""

from __future__ import annotations

import pytest

from llenvs.core import GenerationRequest, Message, Prompt, SamplingParams
from llenvs.core.errors import BackendError, PermanentBackendError
from llenvs.inference._backends.scripted import ScriptedBackend


def _ask(backend, *messages, continuation=""):
    prompt = Prompt(tuple(Message(role, text) for role, text in messages), continuation)
    return backend.generate([GenerationRequest(prompt, SamplingParams(), 100)])[0].text


def test_each_prompt_gets_its_own_response_in_any_order():
    backend = ScriptedBackend(by_prompt={"q0": "Zero.", "q1": "One."})
    assert _ask(backend, ("user", "q1")) == "One."
    assert _ask(backend, ("system", "be brief"), ("user", "q0")) == "Zero."
    assert _ask(backend, ("user", "q1"), continuation="On") == "e."


def test_feedback_opens_a_conversation_that_takes_the_next_output():
    backend = ScriptedBackend(["After feedback."], by_prompt={"q0": "Zero."})
    feedback = (("user", "q0"), ("assistant", "Zero."), ("user", "check it"))
    assert _ask(backend, *feedback) == "After feedback."


def test_running_out_of_responses_is_a_permanent_error():
    backend = ScriptedBackend(["only one"])
    assert _ask(backend, ("user", "a")) == "only one"
    with pytest.raises(PermanentBackendError, match="no response left"):
        _ask(backend, ("user", "b"))
    assert issubclass(PermanentBackendError, BackendError)


def test_an_unknown_prompt_with_no_output_left_is_a_permanent_error_naming_it():
    backend = ScriptedBackend(by_prompt={"q0": "Zero."})
    with pytest.raises(PermanentBackendError, match="'q9'"):
        _ask(backend, ("user", "q9"))
