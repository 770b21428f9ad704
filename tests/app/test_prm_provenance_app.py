"""Issue 15, provenance in the workbench: Browse says which PRM scored a trace, and the
intervention panel scores a branch with that PRM unless told otherwise.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from llenvs.core import SegmentedEnvironment
from llenvs.core.registry import environment_registry
from llenvs.core.run_spec import PRMKind, PRMSpec
from llenvs.evaluation import replay_trace
from llenvs.evaluation.branching import PRM_UNSCORED
from llenvs.rewards import prm_rewards
from llenvs.traces import read_branches, read_traces, write_traces
from llenvs.ui import _evaluate as evaluate_view
from llenvs.workbench.files import TRACES_DIR_ENV
from llenvs.workbench.models import ModelKind
from tests.app.test_evaluate import _run, _scripted
from tests.app.test_intervention import generate
from tests.app.test_pages import open_page

WRONG = "Count the animals. Deer have 4 legs. So 12 × 4 = 40 deer legs. <answer>40</answer>"
RIGHT = "Count the animals. Deer have 4 legs. So 12 × 4 = 48 deer legs. <answer>48</answer>"
SERVED = PRMSpec(
    PRMKind.VLLM,
    "tiny-prm",
    convention="qwen2.5-math-prm",
    base_url="http://127.0.0.1:9/v1",
    class_name="ServedPRM",
)


def _folder(tmp_path, monkeypatch, prm):
    """A traces folder with one leg_counting trace whose run records ``prm``."""
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=100, seed=42)
    env = SegmentedEnvironment(base, "sentence", reward_functions=(*prm_rewards("arithmetic"),))
    parent = replay_trace(env, 0, WRONG, model="scripted")
    spec = dataclasses.replace(parent.run.spec, prm=prm)
    parent = dataclasses.replace(parent, run=dataclasses.replace(parent.run, spec=spec))
    folder = tmp_path / "traces"
    folder.mkdir()
    write_traces(folder / "lc.jsonl", [parent])
    monkeypatch.setenv(TRACES_DIR_ENV, str(folder))
    return folder


def _captions(at) -> list[str]:
    return [c.value for c in at.caption]


def test_the_header_says_which_prm_scored_the_trace(tmp_path, monkeypatch):
    folder = _folder(tmp_path, monkeypatch, SERVED)
    at = open_page("browse", file=str(folder / "lc.jsonl"), trace="1", segment="0")
    assert not at.exception, at.exception
    assert (
        "PRM scores: recorded with the trace, by vllm/tiny-prm (ServedPRM, convention "
        "qwen2.5-math-prm, "
        "base_url http://127.0.0.1:9/v1)"
    ) in _captions(at)
    # The panel offers the recorded PRM, and chooses it.
    assert at.selectbox(key="iv-prm").value == "vllm/tiny-prm"


def test_a_trace_without_a_record_says_so(tmp_path, monkeypatch):
    folder = _folder(tmp_path, monkeypatch, None)
    at = open_page("browse", file=str(folder / "lc.jsonl"), trace="1", segment="0")
    # its segments hold PRM scores: the header says so, and that their PRM is not recorded
    captions = _captions(at)
    assert "PRM scores: recorded with the trace; which PRM made them is not recorded" in captions
    assert "PRM scores: none recorded" not in captions
    [detail] = [c for c in captions if c.startswith("characters 0–")]
    assert "PRM score, recorded with the trace: prm (PRM not recorded) 0.500" in detail


@pytest.mark.parametrize("keep", [True, False], ids=["recorded", "none chosen"])
def test_the_panel_rescores_a_branch_with_the_recorded_prm(tmp_path, monkeypatch, keep):
    folder = _folder(tmp_path, monkeypatch, PRMSpec(PRMKind.ARITHMETIC, class_name="ArithmeticPRM"))
    responses = tmp_path / "responses.jsonl"
    responses.write_text(json.dumps(RIGHT) + "\n")
    at = open_page("browse", file=str(folder / "lc.jsonl"), trace="1", segment="2")
    assert at.selectbox(key="iv-prm").value == "arithmetic"
    if not keep:
        at.selectbox(key="iv-prm").select_index(0).run()  # "none"
        assert at.selectbox(key="iv-prm").value is None
    at.radio(key="iv-action").set_value("Resample").run()
    at.selectbox(key="iv-model").set_value(ModelKind.SCRIPTED).run()
    at.text_input(key="iv-SCRIPTED").input(str(responses)).run()
    generate(at)
    assert not at.exception, at.exception
    [child] = read_branches(folder / "lc.jsonl")
    if not keep:  # the user chose no PRM: none scores the branch
        assert child.run.spec.prm is None
        assert all(not s.prm_scores for s in child.segments)
    else:
        assert child.run.spec.prm == PRMSpec(PRMKind.ARITHMETIC, class_name="ArithmeticPRM")
        assert child.segments[2].prm_scores == {"prm": 1.0}  # 12 × 4 = 48, checked


def test_the_evaluate_page_records_the_prm_it_scored_with(tmp_path, monkeypatch):
    folder = tmp_path / "traces"
    folder.mkdir()
    monkeypatch.setenv(TRACES_DIR_ENV, str(folder))
    backend = _scripted((0, 1))
    monkeypatch.setattr(evaluate_view, "load_backend", lambda choice, key=None: backend)
    at = open_page("evaluate")
    at.text_input(key="ev-tasks").input("2").run()
    at.selectbox(key="ev-prm").set_value("arithmetic").run()
    _run(at)
    assert not at.exception, at.exception
    [path] = folder.glob("eval-leg_counting-*.jsonl")
    traces = list(read_traces(path))
    assert [t.run.spec.prm for t in traces] == [
        PRMSpec(PRMKind.ARITHMETIC, class_name="ArithmeticPRM")
    ] * 2


def test_the_header_says_why_a_branch_is_not_scored_by_its_parents_prm(tmp_path, monkeypatch):
    folder = _folder(tmp_path, monkeypatch, None)
    path = folder / "lc.jsonl"
    (trace,) = read_traces(path)
    reason = "the parent's PRM transformers/gone cannot be made here: no such folder"
    write_traces(
        path, [dataclasses.replace(trace, metadata={**trace.metadata, PRM_UNSCORED: reason})]
    )
    at = open_page("browse", file=str(path), trace="1", segment="0")
    assert not at.exception, at.exception
    assert f"Not scored by its parent's PRM: {reason}" in _captions(at)
    write_traces(path, [trace])
    at = open_page("browse", file=str(path), trace="1", segment="0")
    assert not any(c.startswith("Not scored by its parent's PRM") for c in _captions(at))
