import subprocess
import sys

import pytest

from llenvs.core.errors import UnknownName
from llenvs.rewards import PRM_NAMES, ArithmeticPRM, get_prm


def test_arithmetic_by_name_with_options():
    prm = get_prm("arithmetic", neutral=0.25)
    assert isinstance(prm, ArithmeticPRM) and prm.neutral == 0.25


@pytest.mark.parametrize("name", ["nope", "transformers", "transformers/", "openai/x"])
def test_unknown_names_list_the_choices(name):
    with pytest.raises(UnknownName) as caught:
        get_prm(name)
    assert caught.value.kind == "prm"
    assert caught.value.choices == tuple(sorted(PRM_NAMES))
    assert (
        "choose one of: arithmetic, judge, judge:<backend>, mc, transformers/<local path>"
        in str(caught.value)
    )


def test_a_missing_folder_is_a_clear_error():
    with pytest.raises(FileNotFoundError, match="nothing is downloaded"):
        get_prm("transformers/no/such/folder", convention="math-shepherd")


@pytest.mark.slow
def test_importing_rewards_imports_neither_torch_nor_transformers():
    code = (
        "import sys, llenvs.core, llenvs.rewards; "
        "llenvs.rewards.get_prm('arithmetic').score_steps('q', ['1 + 1 = 2']); "
        "print([m for m in ('torch', 'transformers') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "[]"


def test_every_prm_get_prm_makes_is_in_the_packages_face():
    """``from llenvs.rewards import X`` for each PRM a name makes, TransformersPRM aside (torch)."""
    import llenvs.rewards as rewards
    from llenvs.inference import get_backend

    made = [
        get_prm("arithmetic"),
        get_prm("judge", backend=get_backend("scripted", outputs=["ok"])),
        get_prm("vllm/some-prm", base_url="http://127.0.0.1:9/v1"),
    ]
    for prm in made:
        name = type(prm).__name__
        assert name in rewards.__all__ and getattr(rewards, name) is type(prm), name


def _mc_error_after_importing(module):
    """The error ``get_prm("mc")`` raises in a fresh interpreter that imported ``module``."""
    code = (
        f"import {module}\n"
        "from llenvs.rewards import get_prm\n"
        "try:\n"
        "    get_prm('mc')\n"
        "except ValueError as error:\n"
        "    print(error)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return out.stdout.strip()


@pytest.mark.slow
def test_mc_is_registered_by_the_analysis_layer_and_every_entry_point_above_it():
    """The rewards layer never imports analysis: ``mc`` comes from the layer that defines it."""
    alone = _mc_error_after_importing("llenvs.evaluation")
    assert alone.startswith("the 'mc' PRM is not registered here: import llenvs.analysis first")
    for module in ("llenvs.analysis", "llenvs.cli.main", "llenvs.workbench.jobs._evaluation_job"):
        made = _mc_error_after_importing(module)
        assert made.startswith("the mc PRM needs backend= (the model that continues)"), module


def test_a_registered_name_cannot_be_taken_by_another_factory():
    from llenvs.analysis.instruments import make_prm
    from llenvs.rewards import register_prm

    register_prm("mc", make_prm)  # the analysis layer's own registration, again: no change
    with pytest.raises(ValueError, match="'mc' is registered already, by another factory"):
        register_prm("mc", ArithmeticPRM)
    with pytest.raises(ValueError, match="cannot register the prm 'vllm/x'"):
        register_prm("vllm/x", ArithmeticPRM)
