import pytest

from llenvs.core import ModelBackend, UnknownName
from llenvs.inference import backend_providers, get_backend
from llenvs.inference.protocol import SamplingParams


def test_get_backend_scripted():
    backend = get_backend("scripted", outputs=["Four."])
    assert isinstance(backend, ModelBackend)
    assert backend.name == "scripted"


def test_unknown_provider_lists_the_choices():
    with pytest.raises(UnknownName) as caught:
        get_backend("nope/x")
    assert caught.value.choices == backend_providers()
    assert "choose one of: " in str(caught.value) and "scripted" in str(caught.value)


def test_scripted_takes_no_model_name():
    with pytest.raises(ValueError, match="no model name"):
        get_backend("scripted/x", outputs=["a"])


def test_protocol_reexports_the_core_values():
    from llenvs.core import SamplingParams as core_params

    assert SamplingParams is core_params
