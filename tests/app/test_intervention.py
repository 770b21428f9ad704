"""The Browse page's intervention panel under AppTest: every action, drafts, errors, the model.

The scripted backend (a responses file, as a user can choose it) drives the actions; the
embedded model forces a segment of a sample trace in ``test_walkthrough`` (the tour's steps).
"""

from __future__ import annotations

import json
import shutil
import threading
import time

import pytest

from llenvs.core import BackendCapabilities, Complete, Feedback, Force, SegmentedEnvironment
from llenvs.core.registry import environment_registry
from llenvs.core.run_spec import ModelSpec
from llenvs.evaluation import BranchRequest, branch, replay_trace
from llenvs.traces import read_branches, read_traces, write_traces
from llenvs.ui.browse import _intervention_panel as intervention_panel
from llenvs.workbench.files import TRACES_DIR_ENV
from llenvs.workbench.models import ModelKind
from tests.app.test_pages import REPO, open_page, texts

WRONG = "Count the animals. Deer have 4 legs. So 12 deer have 40. <answer>40</answer>"
RIGHT = "Count the animals. Deer have 4 legs. So 100 in all. <answer>100</answer>"
SAMPLES_RANGE = "samples must be 1..16 (the resamples of one intervention, generated together)"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A traces folder of its own with one leg_counting trace (task 0, seed 42)."""
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=100, seed=42)
    parent = replay_trace(SegmentedEnvironment(base, "sentence"), 0, WRONG, model="scripted")
    traces = tmp_path / "traces"
    traces.mkdir()
    write_traces(traces / "lc.jsonl", [parent])
    monkeypatch.setenv(TRACES_DIR_ENV, str(traces))
    return traces


def _responses(tmp_path, *texts):
    path = tmp_path / "responses.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in texts))
    return str(path)


def _open(folder, segment, responses):
    at = open_page("browse", file=str(folder / "lc.jsonl"), trace="1", segment=str(segment))
    at.selectbox(key="iv-model").set_value(ModelKind.SCRIPTED).run()
    at.text_input(key="iv-SCRIPTED").input(responses).run()
    assert not at.exception
    return at


def generate(at, timeout=60):
    """Click Generate, wait for the job in the background, and draw the page once it is done."""
    at.button(key="iv-run").click().run(timeout=timeout)
    job = at.session_state["iv-job"] if "iv-job" in at.session_state else None
    if job is not None:
        assert job.wait(timeout), "the intervention did not finish"
        at.run(timeout=timeout)
    assert "iv-job" not in at.session_state
    return at


def _branches(folder):
    return list(read_branches(folder / "lc.jsonl"))


def test_force_replaces_the_segment_and_shows_the_branch_beside_its_parent(folder, tmp_path):
    at = _open(folder, 2, _responses(tmp_path, RIGHT))
    assert at.text_area(key="iv-force-text").value == "So 12 deer have 40. <answer>40</answer>"
    assert "keeps segments 0–1, replaces segment 2 with your text" in texts(at)
    at.text_area(key="iv-force-text").input("So 100 in all. <answer>100</answer>").run()
    generate(at)
    assert not at.exception, at.exception
    [child] = _branches(folder)
    assert isinstance(child.parent.intervention, Force) and child.parent.segment_index == 2
    assert child.response == RIGHT and child.success
    shown = texts(at)
    assert "1 branch appended to lc.branches.jsonl" in shown
    tables = [d.value for d in at.dataframe]
    aligned = next(t for t in tables if "note" in t.columns)
    assert aligned["note"].tolist() == ["kept", "intervention", "intervention"]
    assert aligned["op"].tolist() == ["equal", "removed", "inserted"]  # no word of it alike
    assert aligned[["parent #", "branch #"]].values.tolist() == [
        ["0–1", "0–1"],
        ["2", ""],
        ["", "2"],
    ]
    summary = next(t for t in tables if "change" in t.columns)
    assert summary.set_index("")["branch"]["final answer"] == "100"
    assert summary.set_index("")["change"]["success"] == "False → True"


def test_feedback_becomes_a_user_turn_after_the_segment(folder, tmp_path):
    at = _open(folder, 1, _responses(tmp_path, "Recount: 100. <answer>100</answer>"))
    at.radio(key="iv-action").set_value("Feedback").run()
    assert "adds your feedback as a user turn after segment 1" in texts(at)
    at.text_area(key="iv-feedback").input("Recount the deer.").run()
    generate(at)
    assert not at.exception
    [child] = _branches(folder)
    assert isinstance(child.parent.intervention, Feedback) and child.parent.segment_index == 2
    assert [m.role for m in child.messages] == ["user", "assistant", "user", "assistant"]
    assert child.messages[2].content == "Recount the deer."


def test_complete_keeps_the_segment_and_finishes_in_one_call(folder, tmp_path):
    at = _open(folder, 0, _responses(tmp_path, RIGHT))
    at.radio(key="iv-action").set_value("COMPLETE").run()
    assert "keeps segment 0, generates the rest in one call" in texts(at)
    generate(at)
    [child] = _branches(folder)
    assert isinstance(child.parent.intervention, Complete) and child.parent.segment_index == 1
    assert child.response == RIGHT
    assert all("one_shot" in {f.value for f in s.flags} for s in child.segments[1:])


def test_resample_makes_a_set_with_its_answer_counts(folder, tmp_path):
    at = _open(folder, 1, _responses(tmp_path, RIGHT))
    at.radio(key="iv-action").set_value("Resample").run()
    at.text_input(key="iv-samples").input("3").run()
    generate(at)
    assert not at.exception
    samples = _branches(folder)
    assert len(samples) == 3 and {s.run.spec.sampling.seed for s in samples} == {
        0,
        1000003,
        2000006,
    }
    assert "3 samples, success 3/3 = 100%" in texts(at)
    moved = "the parent answered 40; 0 of 3 samples kept it (0%, 95% interval 0%–56%); 3 moved"
    assert f"{moved}: to 100 (3)" in texts(at)
    table = next(d.value for d in at.dataframe if "parent" in d.value.columns)
    assert table.values.tolist() == [["100", 0, 3], ["40", 1, 0]]


@pytest.mark.parametrize(
    ("key", "typed", "refused"),
    [
        ("iv-samples", "99999999999999999999", SAMPLES_RANGE),
        ("iv-samples", "0", SAMPLES_RANGE),
        ("iv-temp", "9", "temperature must be 0..2 (0 is greedy)"),
        ("iv-seed", "-1", "seed must be 0..4294967295 (the seeds numpy's generators take)"),
    ],
)
def test_a_resample_box_out_of_range_refuses_naming_it_and_generate_is_off(
    folder, tmp_path, key, typed, refused
):
    """Issue 50, item 2: the box says what it refuses, Generate follows, and the caption plans
    no sample it would not make; a number in range turns Generate on again and is planned."""
    at = _open(folder, 1, _responses(tmp_path, RIGHT))
    at.radio(key="iv-action").set_value("Resample").run()
    assert "keeps segment 0, generates a new sample from segment 1 on" in texts(at)
    assert at.text_input(key="iv-samples").label == "samples · 1..16"
    at.text_input(key=key).input(typed).run()
    assert not at.exception
    message = f"{refused}, got {typed}"
    assert [e.value for e in at.error] == [message]  # under the box
    assert f"Generate is off: {message}." in [w.value for w in at.warning]
    assert at.button(key="iv-run").disabled
    planned = "sample from segment 1 on" in texts(at)
    assert planned == (key != "iv-samples")  # a refused count plans no sample
    at.text_input(key=key).input("2").run()
    assert not at.error and not at.button(key="iv-run").disabled
    if key == "iv-samples":
        assert "keeps segment 0, generates 2 samples from segment 1 on" in texts(at)


def test_a_force_draft_survives_moving_the_selection_and_back(folder, tmp_path):
    at = _open(folder, 1, _responses(tmp_path, RIGHT))
    at.text_area(key="iv-force-text").input("My own text. ").run()
    at.button(key="nav-j").click().run()  # segment 2
    assert at.text_area(key="iv-force-text").value.startswith("So 12 deer")
    at.button(key="nav-k").click().run()  # back to segment 1
    assert at.text_area(key="iv-force-text").value == "My own text. "


def test_a_failing_backend_shows_a_message_and_writes_nothing(folder, tmp_path, monkeypatch):
    class Down:
        name = "down"
        capabilities = BackendCapabilities()

        def generate(self, requests):
            raise RuntimeError("the server is down")

    monkeypatch.setattr(intervention_panel, "load_backend", lambda choice, key=None: Down())
    at = _open(folder, 1, _responses(tmp_path, RIGHT))
    generate(at)
    assert not at.exception
    assert any("Nothing was written" in e.value and "server is down" in e.value for e in at.error)
    assert _branches(folder) == []


def test_an_imported_trace_is_branched_on_its_task_record_and_the_panel_says_so(app_env, tmp_path):
    at = open_page("browse", file=str(app_env / "imported-real_responses.jsonl"), trace="1")
    assert any("branched on its own task record" in i.value for i in at.info)


def test_a_branch_of_a_branch_goes_to_the_same_sidecar_and_shows_in_the_tree(folder, tmp_path):
    at = _open(folder, 1, _responses(tmp_path, "Recount: 48. So 100. <answer>100</answer>"))
    at.radio(key="iv-action").set_value("Feedback").run()
    at.text_area(key="iv-feedback").input("Recount the deer.").run()
    generate(at)
    [first] = _branches(folder)
    sidecar = folder / "lc.branches.jsonl"
    # open the branch itself in Browse and branch it again, after its feedback answer's first step
    at = open_page("browse", file=str(sidecar), trace="1", segment="2")
    at.selectbox(key="iv-model").set_value(ModelKind.SCRIPTED).run()
    at.text_input(key="iv-SCRIPTED").input(
        _responses(tmp_path, "Recount: 48. Then 100. <answer>100</answer>")
    ).run()
    at.radio(key="iv-action").set_value("Resample").run()
    generate(at)
    assert not at.exception
    first_again, second = read_traces(sidecar)
    assert second.parent.parent_id == first.trace_id == first_again.trace_id
    assert [m.content for m in second.messages if m.role == "user"][1:] == ["Recount the deer."]
    at = open_page("browse", file=str(folder / "lc.jsonl"), trace="1", segment="1")
    labels = [b.label for b in at.button if str(b.key).startswith("iv-tree-")]
    assert labels[0].startswith("↳ line 1: feedback after segment 1")
    assert labels[1].startswith("↳ ↳ line 2")


def test_a_recorded_branch_re_runs_identically(folder, tmp_path):
    responses = _responses(tmp_path, RIGHT)
    at = _open(folder, 2, responses)
    at.text_area(key="iv-force-text").input("So 100 in all. <answer>100</answer>").run()
    generate(at)
    at.button(key="iv-rerun").click().run()
    assert not at.exception
    assert [s.value for s in at.success if "Run again" in s.value] == [
        "Run again from its record: identical: 3 segments, the same text."
    ]
    assert len(_branches(folder)) == 1  # a re-run is checked, not saved again


class Gated:
    """The scripted backend, held before every call after the first until ``gate`` is set."""

    def __init__(self, *outputs):
        from llenvs.inference import get_backend

        self.inner = get_backend("scripted", outputs=list(outputs))
        self.name = "scripted"
        self.capabilities = BackendCapabilities()
        self.calls = 0
        self.gate = threading.Event()

    def generate(self, requests):
        self.calls += 1
        if self.calls > 1:
            assert self.gate.wait(60), "the test never opened the gate"
        return self.inner.generate(requests)


def test_stop_keeps_what_was_generated_marked_truncated(folder, tmp_path, monkeypatch):
    backend = Gated(
        "Count the animals. So 12 deer. They have 48 legs. And 3 more. <answer>100</answer>"
    )
    monkeypatch.setattr(intervention_panel, "load_backend", lambda choice, key=None: backend)
    at = _open(folder, 1, _responses(tmp_path, RIGHT))
    at.radio(key="iv-action").set_value("Resample").run()  # keeps segment 0, then live
    at.button(key="iv-run").click().run()
    job = at.session_state["iv-job"]
    for _ in range(600):  # the first segment arrives, then the model is held
        if job.segments():
            break
        time.sleep(0.05)
    at.run()
    assert "Generating branch of trace" in texts(at) and job.running
    live = next(d.value for d in at.dataframe if "sample" in d.value.columns)
    assert live["text"].tolist() == ["So 12 deer. "]
    at.button(key="iv-stop").click().run()
    assert "Stopping after the segment being generated" in texts(at)
    backend.gate.set()
    assert job.wait(60)
    at.run()
    assert not at.exception
    [child] = _branches(folder)
    assert child.metadata["stopped"] and child.metadata["truncated"]
    assert [s.text for s in child.segments[1:]] == ["So 12 deer. ", "They have 48 legs. "]
    assert any("Stopped: 1 branch kept, marked truncated" in s.value for s in at.success)
    assert "iv-stop" not in [b.key for b in at.button]


def test_two_sessions_intervening_at_once_get_their_own_branches(
    tmp_path, monkeypatch, embedded_backend
):
    """Two browser sessions share the loaded model; each gets the branch it would get alone."""
    traces = tmp_path / "traces"
    traces.mkdir()
    shutil.copy(REPO / "sample_traces" / "leg_counting-smollm2.jsonl", traces / "lc.jsonl")
    monkeypatch.setenv(TRACES_DIR_ENV, str(traces))
    forced = {"1": "Deer have 4 legs, so 12 deer have 48 legs. ", "2": "Sheep have 4 legs. "}
    sessions = []
    for line, text in forced.items():
        at = open_page("browse", file=str(traces / "lc.jsonl"), trace=line, segment="0")
        at.text_area(key="iv-force-text").input(text).run()
        sessions.append(at)
    for at in sessions:  # both start before either ends: the jobs run side by side
        at.button(key="iv-run").click().run(timeout=900)
    jobs = [at.session_state["iv-job"] for at in sessions if "iv-job" in at.session_state]
    assert len(jobs) == 2 and all(job.wait(900) for job in jobs)
    assert jobs[1].started < jobs[0].finished  # they overlapped
    for at in sessions:
        at.run()
        assert not at.exception, at.exception
    parents = {str(n): t for n, t in enumerate(read_traces(traces / "lc.jsonl"), 1)}
    children = {b.parent.parent_id: b for b in read_branches(traces / "lc.jsonl")}
    assert len(children) == 2
    for line, text in forced.items():
        parent = parents[line]
        [alone] = branch(BranchRequest(parent, 0, Force(text)), embedded_backend)
        assert children[parent.trace_id].response == alone.response


def test_a_trace_of_a_served_model_is_branched_on_its_own_server(folder, vllm_server):
    """A trace made through an OpenAI-compatible server (vLLM here) names it; the panel uses it."""
    from dataclasses import replace

    from llenvs.inference import get_backend
    from llenvs.inference._backends.embedded_model import embedded_model_path

    options = {"base_url": vllm_server.base_url, "tokenizer": str(embedded_model_path())}
    [parent] = read_traces(folder / "lc.jsonl")
    parent = replace(
        parent,
        run=replace(
            parent.run,
            spec=replace(parent.run.spec, model=ModelSpec.parse("openai/smollm2", **options)),
        ),
    )
    write_traces(folder / "lc.jsonl", [parent])
    at = open_page("browse", file=str(folder / "lc.jsonl"), trace="1", segment="1")
    assert at.selectbox(key="iv-model").value is ModelKind.OPENAI  # the trace's own server
    assert at.text_input(key="iv-openai-url").value == vllm_server.base_url
    assert at.text_input(key="iv-openai-model").value == "smollm2"
    generate(at, timeout=300)
    assert not at.exception and not at.error, [e.value for e in at.error]
    [child] = _branches(folder)
    assert child.run.model_name == "openai/smollm2" and child.run.spec.model.base_url
    served = get_backend("openai/smollm2", **options)
    [alone] = branch(BranchRequest(parent, 1, Force(parent.segments[1].text)), served)
    assert child.response == alone.response  # greedy: the same branch as the library's


def test_a_trace_whose_model_is_out_of_reach_starts_from_the_settings(folder):
    from llenvs.workbench.models import Settings, save_settings

    save_settings(folder, Settings(model="folder", location="/models/mine", prm="arithmetic"))
    at = open_page("browse", file=str(folder / "lc.jsonl"), trace="1", segment="1")
    assert at.selectbox(key="iv-model").value is ModelKind.FOLDER  # scripted: out of reach
    assert at.text_input(key="iv-FOLDER").value == "/models/mine"
    assert at.selectbox(key="iv-prm").value == "arithmetic"


def test_a_model_that_cannot_score_a_text_is_said_so_and_generate_still_works(folder, tmp_path):
    at = _open(folder, 1, _responses(tmp_path, RIGHT))
    at.text_area(key="iv-force-text").input("Deer have 2 legs.").run()
    at.button(key="iv-op-run").click().run()
    assert not at.exception, at.exception
    [said] = [i.value for i in at.info if "cannot score a text" in i.value]
    assert said.startswith("scripted cannot score a text: it gives no prompt log-probabilities")
    assert "iv-op-job" not in at.session_state
    generate(at)
    [made] = read_branches(folder / "lc.jsonl")
    assert made.parent.intervention == Force("Deer have 2 legs.")
    assert "on_policy" not in made.metadata


@pytest.mark.slow  # the tries are measured with MiniLM
def test_substitute_keeps_the_model_s_own_closest_segment_and_shows_it_beside_the_target(
    folder, tmp_path
):
    """Substitute on segment 2: the tries are the model's own, the closest is forced, and the
    panel shows the target beside it with their similarities and how many tries it took."""
    from llenvs.core import Substitute

    at = _open(folder, 2, _responses(tmp_path, RIGHT))
    at.radio(key="iv-action").set_value("Substitute").run()
    assert "resamples segment 2 until the model writes something close to your text" in texts(at)
    at.text_area(key="iv-force-text").input("So there are 100 legs in all.").run()
    at.text_input(key="iv-tries").input("3").run()
    at.text_input(key="iv-similarity").input("0.5").run()
    generate(at)
    assert not at.exception, at.exception
    [child] = _branches(folder)
    asked = child.parent.intervention
    assert isinstance(asked, Substitute) and (asked.tries, asked.similarity) == (3, 0.5)
    found = child.metadata["substitute"]
    assert found["text"] == "So 100 in all. <answer>100</answer>" == child.segments[2].text
    assert found["target"] == "So there are 100 legs in all." and found["tries"] == 3
    assert child.success
    shown = texts(at)
    assert "Substitute: substitute found in 3 of 3 tries" in shown
    rows = next(d.value for d in at.dataframe if "on-policy percentile" in d.value.columns)
    assert rows["text"].tolist() == [found["target"], found["text"]]
    assert rows["similarity"].tolist()[1] == round(found["similarity"], 3)


@pytest.mark.slow  # the tries are measured with MiniLM
def test_a_substitute_that_no_try_brings_close_says_so(folder, tmp_path):
    at = _open(folder, 2, _responses(tmp_path, RIGHT))
    at.radio(key="iv-action").set_value("Substitute").run()
    at.text_area(key="iv-force-text").input("Photosynthesis happens in chloroplasts.").run()
    at.text_input(key="iv-tries").input("2").run()
    at.text_input(key="iv-similarity").input("0.95").run()
    generate(at)
    assert not at.exception, at.exception
    warned = [w.value for w in at.warning]
    assert any("no try came close: the closest of 2 tries" in w for w in warned), warned
