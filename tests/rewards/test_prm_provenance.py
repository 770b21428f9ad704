"""``prm_provenance``: what a trace records about the PRM that scored it, and never a key."""

from __future__ import annotations

import pytest

from llenvs.core import BackendCapabilities
from llenvs.core.run_spec import ModelSpec, PRMKind, PRMSpec, RunSpec
from llenvs.rewards import Aggregation, prm_rewards
from llenvs.rewards.prm import (
    TransformersPRM,
    describe_prm,
    prm_provenance,
    provenance_of,
    recorded_prm_rewards,
)
from llenvs.traces import RunRecord


class Backend:
    name = "openai/judge-model"
    capabilities = BackendCapabilities(
        rebuild_options={"base_url": "http://127.0.0.1:8000/v1", "mode": "completions"}
    )
    api_key = "sk-secret"

    def generate(self, requests):
        raise AssertionError("not asked in these tests")


class Judge:
    """A judge over a served backend, with an aggregation (as the judge PRM may have)."""

    backend = Backend()
    aggregation = Aggregation.MIN


def test_a_transformers_prm_records_its_convention_and_folder():
    prm = TransformersPRM(model=None, tokenizer=None, convention="math-shepherd")
    spec = prm_provenance("transformers/models/shepherd", prm)
    assert spec.to_record() == {
        "kind": "transformers",
        "model": "models/shepherd",
        "convention": "math-shepherd",
        "class_name": "TransformersPRM",
    }
    RunRecord(RunSpec(prm=spec))  # a valid run record


def test_a_judge_records_its_backend_and_url_but_never_its_key():
    spec = prm_provenance("judge:openai/judge-model", Judge())
    assert spec.to_record() == {
        "kind": "judge",
        "judge": {
            "provider": "openai",
            "model": "judge-model",
            "base_url": "http://127.0.0.1:8000/v1",
            "mode": "completions",
            "api_key_env": "OPENAI_API_KEY",
        },
        "aggregation": "min",
        "class_name": "Judge",
    }
    assert "sk-secret" not in repr(spec)


def test_the_prm_is_found_among_the_reward_functions():
    arithmetic = PRMSpec(PRMKind.ARITHMETIC, class_name="ArithmeticPRM")
    assert provenance_of("arithmetic", prm_rewards("arithmetic")) == arithmetic
    assert provenance_of(None, prm_rewards("arithmetic")) is None
    assert provenance_of("arithmetic", ()) == PRMSpec.parse("arithmetic")


def test_a_recorded_prm_is_made_again_or_named_in_the_error():
    [reward] = recorded_prm_rewards(PRMSpec(PRMKind.ARITHMETIC, class_name="ArithmeticPRM"))
    assert reward.name == "prm"
    import llenvs.analysis  # noqa: F401  (registers "mc", as the CLI and the workbench do)

    with pytest.raises(
        ValueError, match=r"the PRM 'mc' \(MonteCarloPRM\), .*cannot be made here.*needs backend="
    ):
        recorded_prm_rewards(PRMSpec(PRMKind.MC, class_name="MonteCarloPRM"))


def test_the_description_is_one_line():
    assert describe_prm(PRMSpec(PRMKind.ARITHMETIC, class_name="ArithmeticPRM")) == (
        "arithmetic (ArithmeticPRM)"
    )
    assert describe_prm(PRMSpec.parse("arithmetic")) == "arithmetic"
    assert describe_prm(None) == "none recorded"


class Named:
    """A stand-in for the branch's model: only its name and ``generate`` matter here."""

    def __init__(self, name):
        self.name = name
        self.capabilities = BackendCapabilities()

    def generate(self, requests):
        raise AssertionError("not asked in these tests")


def test_a_recorded_judge_of_the_branchs_model_judges_with_that_model():
    branch_model = Named("openai/m")
    run_model = ModelSpec.parse("openai/m", base_url="http://h/v1")
    [reward] = recorded_prm_rewards(PRMSpec.parse("judge"), branch_model, run_model)
    assert reward.prm.backend is branch_model  # no second copy of the model


def test_a_recorded_judge_of_another_model_is_made_again_by_name_or_named_in_the_error():
    judge = PRMSpec(PRMKind.JUDGE, class_name="JudgePRM")
    [reward] = recorded_prm_rewards(judge, Named("other"), ModelSpec.parse("scripted"))
    assert reward.prm.backend.name == "scripted"  # the parent's judge scores its branch
    with pytest.raises(
        ValueError,
        match=r"the PRM 'judge' \(JudgePRM, model transformers//no/x\), .*cannot be made",
    ):
        recorded_prm_rewards(judge, Named("m"), ModelSpec.parse("transformers//no/x"))
    with pytest.raises(ValueError, match=r"cannot be made here.*needs backend="):
        recorded_prm_rewards(judge)
