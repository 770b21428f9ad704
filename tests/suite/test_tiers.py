"""The fast tier stays fast: a test outside the slow tier that starts a process or loads a model
fails, saying what it did; the same test marked slow passes, and heavy fixtures mark by use."""

from __future__ import annotations

import pytest

CONFTEST = """
pytest_plugins = ["tests.tiers"]
"""

TESTS = """
import subprocess
import sys

import pytest


def test_starts_a_process():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


def test_catches_the_error_and_goes_on():
    try:
        subprocess.run([sys.executable, "-c", "pass"], check=True)
    except RuntimeError:
        pass


def test_loads_a_model():
    from transformers import LlamaConfig, LlamaForCausalLM

    LlamaForCausalLM.from_pretrained("/no/such/model", config=LlamaConfig())


@pytest.mark.slow
def test_marked_slow_starts_a_process():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


@pytest.fixture
def browser():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


def test_asks_for_a_heavy_fixture(browser):
    pass


def test_stays_in_process():
    assert sum(range(4)) == 6
"""


@pytest.fixture
def outcomes(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Each test of ``TESTS`` and how it ended, run under ``tests/tiers.py``."""
    from tests.conftest import REPO

    monkeypatch.setenv("PYTHONPATH", str(REPO))
    monkeypatch.setenv("COLUMNS", "1000")  # the summary lines whole
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_sample=TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rA")
    ended = {}
    for line in result.outlines:
        for outcome in ("PASSED", "FAILED"):
            if line.startswith(outcome + " "):
                name = line.split("::")[1].split(" ")[0]
                ended[name] = outcome if outcome == "PASSED" else line
    return ended


@pytest.mark.slow
def test_a_fast_test_that_starts_a_process_or_loads_a_model_fails(outcomes):
    assert "started a process (subprocess.Popen" in outcomes["test_starts_a_process"]
    assert "started a process" in outcomes["test_catches_the_error_and_goes_on"]
    assert (
        "loaded a model (LlamaForCausalLM.from_pretrained('/no/such/model',))"
        in (outcomes["test_loads_a_model"])
    )
    assert "@pytest.mark.slow" in outcomes["test_starts_a_process"]
    assert outcomes["test_marked_slow_starts_a_process"] == "PASSED"
    assert outcomes["test_asks_for_a_heavy_fixture"] == "PASSED"
    assert outcomes["test_stays_in_process"] == "PASSED"
