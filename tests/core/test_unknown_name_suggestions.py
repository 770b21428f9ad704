"""Issue 17 item 11: an unknown name among many choices suggests close ones instead of all."""

from __future__ import annotations

import pytest

from llenvs.core.errors import UnknownName
from llenvs.core.registry import EnvironmentRegistry, environment_registry

MANY = [f"task_{i:03d}" for i in range(60)] + ["leg_counting", "letter_counting"]


def test_few_choices_are_all_listed():
    error = UnknownName("backend", "nope", ["transformers", "scripted"])
    assert str(error) == "unknown backend 'nope': choose one of: scripted, transformers"


def test_many_choices_give_close_matches_and_a_count():
    message = str(UnknownName("dataset", "leg_countin", MANY, hint="--list-envs lists them"))
    assert message.startswith("unknown dataset 'leg_countin': did you mean leg_counting")
    assert "62 choices" in message and "--list-envs lists them" in message
    assert "task_000" not in message and len(message) < 200


def test_many_choices_and_no_close_match():
    message = str(UnknownName("dataset", "zzzzzz", MANY))
    assert "no close match" in message and "62 choices" in message and len(message) < 200


def test_the_registry_lists_an_adapters_environments():
    names = environment_registry.environment_names("reasoning_gym")
    assert "leg_counting" in names and list(names) == sorted(names)
    with pytest.raises(ValueError, match="huggingface"):
        environment_registry.environment_names("huggingface")


def test_a_registered_adapter_can_list_its_environments():
    registry = EnvironmentRegistry({})
    registry.register_adapter(
        "mine", "llenvs.adapters.reasoning_gym:make_environment", names=lambda: ("b", "a")
    )
    assert registry.environment_names("mine") == ("a", "b")
