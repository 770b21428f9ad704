"""PRM options travel with the PRM: ``--prm-base-url`` reaches the PRM, not ``os.environ``,
and ``--prm judge`` asks the run's own model rather than loading a second one (issue 15)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest

import llenvs.inference
from llenvs.cli.main import main
from llenvs.core.run_spec import PRMKind, PRMSpec
from llenvs.rewards.prm import PRM_BASE_URL_ENV
from llenvs.traces import read_branches, read_traces
from tests.rewards.test_vllm_prm import FakePooling, running_fake_pooling

ENV = ["--env", "leg_counting", "--size", "100", "--seed", "42", "--segmenter", "sentence"]


@pytest.fixture
def served() -> Iterator[FakePooling]:
    with running_fake_pooling() as server:
        yield server


@pytest.fixture
def clean_environ(monkeypatch):
    """No user-set PRM server: what the process's environment holds before the command."""
    monkeypatch.delenv(PRM_BASE_URL_ENV, raising=False)
    return _environ()


def _environ():
    """The process's environment, less the variable pytest itself changes between phases."""
    return {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}


def _responses(path, *texts):
    path.write_text("".join(json.dumps(t) + "\n" for t in texts))
    return path


def _evaluate(tmp_path, *prm):
    out = tmp_path / "runs.jsonl"
    responses = _responses(tmp_path / "r.jsonl", "Count. So 8 legs. <answer>8</answer>")
    status = main(["evaluate", *ENV, "--backend", "scripted", "--responses", str(responses),
                   "--num-tasks", "1", "-o", str(out), "--no-log", "--no-progress",
                   *prm])  # fmt: skip
    assert status == 0
    return out


def test_evaluate_gives_the_url_to_the_prm_and_leaves_the_environment_alone(
    served, clean_environ, tmp_path
):
    out = _evaluate(tmp_path, "--prm", "vllm/m", "--prm-base-url", served.base_url)
    assert _environ() == clean_environ
    [trace] = read_traces(out)
    assert trace.run.spec.prm.base_url == served.base_url
    assert [s.prm_scores["prm"] for s in trace.segments] == [0.06, 0.29]  # the server's scores
    assert served.requests


def test_replay_and_intervene_give_the_url_to_the_prm_too(served, clean_environ, tmp_path):
    out = _evaluate(tmp_path, "--prm", "arithmetic")
    rest = _responses(tmp_path / "rest.jsonl", "Count. So 100 legs. <answer>100</answer>")
    status = main(["intervene", str(out), "--at", "1", "--force", "So 100 legs. ",
                   "--backend", "scripted", "--responses", str(rest), "--no-progress",
                   "--prm", "vllm/m", "--prm-base-url", served.base_url])  # fmt: skip
    assert status == 0
    [child] = read_branches(out)
    assert child.run.spec.prm.name == "vllm/m" and child.run.spec.prm.base_url == served.base_url
    asked = len(served.requests)
    replayed = tmp_path / "replayed.jsonl"
    status = main(["replay", *ENV, "--responses", str(rest), "-o", str(replayed), "--no-progress",
                   "--prm", "vllm/m", "--prm-base-url", served.base_url])  # fmt: skip
    assert status == 0 and len(served.requests) > asked
    assert [s.prm_scores["prm"] for s in next(iter(read_traces(replayed))).segments]
    assert _environ() == clean_environ


def test_a_url_for_another_prm_is_refused(clean_environ, tmp_path, capsys):
    responses = _responses(tmp_path / "r.jsonl", "So 8. <answer>8</answer>")
    status = main(["evaluate", *ENV, "--backend", "scripted", "--responses", str(responses),
                   "-o", str(tmp_path / "o.jsonl"), "--prm", "arithmetic",
                   "--prm-base-url", "http://127.0.0.1:9/v1"])  # fmt: skip
    assert status == 2
    assert "--prm-base-url is for --prm vllm/<model>, not 'arithmetic'" in capsys.readouterr().err
    assert _environ() == clean_environ


def test_prm_judge_asks_the_evaluated_model_and_loads_no_other(tmp_path, monkeypatch):
    made = []
    real = llenvs.inference.get_backend

    def counting(name, **options):
        made.append(name)
        return real(name, **options)

    monkeypatch.setattr(llenvs.inference, "get_backend", counting)
    out = _evaluate(tmp_path, "--prm", "judge")
    assert made == ["scripted"]  # the evaluated model only; no second model for the judge
    [trace] = read_traces(out)
    assert trace.run.spec.prm == PRMSpec(PRMKind.JUDGE, class_name="JudgePRM")
