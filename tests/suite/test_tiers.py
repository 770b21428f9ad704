"""The fast tier stays fast: a test outside the slow tier that starts a process (a subprocess, or
a ``multiprocessing`` spawn, which fires no audit event) or loads a model fails, saying what it
did; the same test marked slow passes, and heavy fixtures mark by use. Every test has a time
limit: one that runs past it fails, naming the limit, also after math-verify has set and
cleared its own SIGALRM timer."""

from __future__ import annotations

import pytest

CONFTEST = """
pytest_plugins = ["tests.tiers"]
"""

TESTS = """
import multiprocessing
import os
import subprocess
import sys
import threading

import pytest

from llenvs.adapters.huggingface import answers_match


def test_starts_a_process():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


def test_spawns_a_multiprocessing_process():
    process = multiprocessing.get_context("spawn").Process(target=os.getpid, name="helper")
    process.start()
    process.join()


@pytest.mark.slow
def test_marked_slow_spawns_a_multiprocessing_process():
    process = multiprocessing.get_context("spawn").Process(target=os.getpid)
    process.start()
    process.join(60)
    assert process.exitcode == 0


@pytest.mark.timeout(1)
def test_waits_past_its_time_limit():
    threading.Event().wait()  # never set: a hang


answers_match("4", "4")  # what math-verify imports on first use, before any limit runs


@pytest.mark.timeout(3)
def test_checks_an_answer_then_waits_past_its_time_limit():
    assert answers_match("4", "4")  # math-verify's own SIGALRM timer, set and cleared
    threading.Event().wait(60)  # never set: past the limit, which must still hold


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
    spawned = "started a process (multiprocessing SpawnProcess.start 'helper')"
    assert spawned in outcomes["test_spawns_a_multiprocessing_process"]
    assert outcomes["test_marked_slow_spawns_a_multiprocessing_process"] == "PASSED"
    assert "Timeout (>1.0s) from pytest-timeout" in outcomes["test_waits_past_its_time_limit"]
    answered = outcomes["test_checks_an_answer_then_waits_past_its_time_limit"]
    assert "Timeout (>3.0s) from pytest-timeout" in answered
    assert outcomes["test_marked_slow_starts_a_process"] == "PASSED"
    assert outcomes["test_asks_for_a_heavy_fixture"] == "PASSED"
    assert outcomes["test_stays_in_process"] == "PASSED"
