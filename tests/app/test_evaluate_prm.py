"""The Evaluate page's PRM choice: a served PRM with its model and server, and the run's model
as the judge; the options go to the PRM itself, never to the process's environment."""

from __future__ import annotations

import os

from llenvs.rewards.prm import PRM_BASE_URL_ENV
from llenvs.ui import _evaluate as evaluate_view
from llenvs.workbench.jobs import EvaluationJob
from llenvs.workbench.models import SERVED_PRM, load_settings
from tests.app.test_evaluate import _run, _scripted, folder  # noqa: F401 (a fixture)
from tests.app.test_pages import open_page, texts
from tests.vllm_server import free_port


def _started(monkeypatch):
    """The jobs the page starts (a run that fails at once is gone from the session by the time
    the script ends)."""
    jobs = []

    class Recorded(EvaluationJob):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            jobs.append(self)

    monkeypatch.setattr(evaluate_view, "EvaluationJob", Recorded)
    return jobs


def _run_one(at, jobs):
    _run(at)
    [job] = jobs
    assert job.wait(60)
    at.run()
    return job


def _prm_reward(job):
    [reward] = [f for f in job.environment.reward_functions if f.name == "prm"]
    return reward


def test_a_served_prm_gets_the_model_and_url_typed(folder, monkeypatch):  # noqa: F811
    monkeypatch.delenv(PRM_BASE_URL_ENV, raising=False)
    backend = _scripted((0,))
    monkeypatch.setattr(evaluate_view, "load_backend", lambda choice, key=None: backend)
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing serves there
    jobs = _started(monkeypatch)
    at = open_page("evaluate")
    at.text_input(key="ev-tasks").input("1").run()
    at.selectbox(key="ev-prm").select(SERVED_PRM).run()
    assert at.text_input(key="ev-prm-url").value == "http://127.0.0.1:8000/v1"  # the default
    at.text_input(key="ev-prm-model").input("tiny-prm").run()
    at.text_input(key="ev-prm-url").input(url).run()
    job = _run_one(at, jobs)
    assert job.plan.prm == "vllm/tiny-prm" and job.plan.prm_options == {"base_url": url}
    prm = _prm_reward(job).prm
    assert (prm.model, prm.base_url) == ("tiny-prm", url)
    assert PRM_BASE_URL_ENV not in os.environ
    shown = texts(at) + " ".join(e.value for e in at.error)
    assert f"the PRM 'tiny-prm' at {url.removesuffix('/v1')}/pooling cannot be reached" in shown


def test_a_served_prm_needs_its_model_name(folder):  # noqa: F811
    at = open_page("evaluate")
    at.selectbox(key="ev-prm").select(SERVED_PRM).run()
    assert any("needs its model's name" in e.value for e in at.error)
    assert at.button(key="ev-run").disabled


def test_the_judge_is_the_model_being_evaluated(folder, monkeypatch):  # noqa: F811
    backend = _scripted((0,))
    monkeypatch.setattr(evaluate_view, "load_backend", lambda choice, key=None: backend)
    jobs = _started(monkeypatch)
    at = open_page("evaluate")
    at.text_input(key="ev-tasks").input("1").run()
    at.selectbox(key="ev-prm").select("judge").run()
    job = _run_one(at, jobs)
    assert job.plan.prm == "judge"
    assert _prm_reward(job).prm.backend is backend  # no second model loaded


def test_a_served_prm_saved_in_settings_is_the_evaluate_pages_default(folder):  # noqa: F811
    at = open_page("settings")
    at.selectbox(key="settings-prm").select(SERVED_PRM).run()
    at.text_input(key="settings-prm-model").input("tiny-prm").run()
    at.text_input(key="settings-prm-url").input("http://10.0.0.5:8001/v1").run()
    at.button(key="settings-save").click().run()
    assert not at.exception
    saved = load_settings(folder)
    assert (saved.prm, saved.prm_base_url) == ("vllm/tiny-prm", "http://10.0.0.5:8001/v1")
    page = open_page("evaluate")
    assert page.selectbox(key="ev-prm").value == SERVED_PRM
    assert page.text_input(key="ev-prm-model").value == "tiny-prm"
    assert page.text_input(key="ev-prm-url").value == "http://10.0.0.5:8001/v1"
