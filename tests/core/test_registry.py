import pytest

from llenvs.core import UnknownName
from llenvs.core.registry import EnvironmentRegistry, environment_registry


def test_unknown_adapter_lists_the_adapters():
    with pytest.raises(UnknownName, match="choose one of: huggingface, reasoning_gym"):
        environment_registry.get(name="leg_counting", adapter="reasoning-gym")


def test_adapters_resolve_lazily_and_once():
    registry = EnvironmentRegistry({"rg": "llenvs.adapters.reasoning_gym:make_environment"})
    factory = registry.adapter("rg")
    assert registry.adapter("rg") is factory
    assert len(registry.get(name="leg_counting", adapter="rg", size=2)) == 2


def test_register_adapter_refuses_duplicates_and_bad_paths():
    registry = EnvironmentRegistry({})
    registry.register_adapter("mine", lambda name, **kw: None)  # type: ignore[arg-type,return-value]
    with pytest.raises(ValueError, match="already registered"):
        registry.register_adapter("mine", "a:b")
    with pytest.raises(ValueError, match="module:function"):
        registry.register_adapter("other", "no_colon")
    assert registry.adapters == ("mine",)
