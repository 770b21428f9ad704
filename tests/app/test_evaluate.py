"""The Evaluate page under AppTest, with the scripted backend answering by prompt."""

from __future__ import annotations

import threading

import pytest

from llenvs.core import BackendCapabilities, RunControl
from llenvs.core.registry import environment_registry
from llenvs.evaluation.episodes import AnswerOpening
from llenvs.inference import get_backend
from llenvs.traces import read_traces
from llenvs.ui import _evaluate as evaluate_view
from llenvs.workbench.files import TRACES_DIR_ENV
from tests.app.test_pages import open_page, texts

TASKS = (0, 1, 2)


class Held:
    """A backend that waits for ``gate`` before each call after the first ``free`` ones.

    ``held`` is set once a call waits at the gate: every call before it has returned.
    """

    def __init__(self, inner, free=0):
        self.inner, self.free, self.calls = inner, free, 0
        self.name = inner.name
        self.capabilities = BackendCapabilities()
        self.gate = threading.Event()
        self.held = threading.Event()

    def generate(self, requests):
        self.calls += 1
        if self.calls > self.free:
            self.held.set()
            assert self.gate.wait(60)
        return self.inner.generate(requests)


@pytest.fixture
def folder(tmp_path, monkeypatch):
    traces = tmp_path / "traces"
    traces.mkdir()
    monkeypatch.setenv(TRACES_DIR_ENV, str(traces))
    return traces


def _scripted(tasks=TASKS):
    """Answers 100 to every task (right where that is the answer): task 0 in one segment."""
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=100, seed=42)
    by_prompt = {}
    for task in tasks:
        state, _ = base.reset(options={"task_index": task})
        steps = "" if task == 0 else "I count the legs. "
        by_prompt[state.observation.prompt] = f"{steps}<answer>100</answer>"
    return get_backend("scripted", by_prompt=by_prompt)


def _run(at, timeout=60):
    at.button(key="ev-run").click().run(timeout=timeout)
    job = at.session_state["ev-job"] if "ev-job" in at.session_state else None
    if job is not None:
        assert job.wait(timeout)
        at.run(timeout=timeout)
    return job


def test_a_run_lands_in_the_traces_folder_with_its_results(folder, monkeypatch):
    backend = _scripted()
    monkeypatch.setattr(evaluate_view, "load_backend", lambda choice, key=None: backend)
    at = open_page("evaluate")
    at.text_input(key="ev-tasks").input("3").run()
    at.text_input(key="ev-segmenter").input("sentence").run()
    _run(at)
    assert not at.exception, at.exception
    [path] = folder.glob("eval-leg_counting-*.jsonl")
    traces = list(read_traces(path))
    assert [t.task.task_index for t in traces] == [0, 1, 2]
    assert any("Done: 3 tasks in eval-leg_counting-" in s.value for s in at.success)
    summary = next(d.value for d in at.dataframe if "success (95% interval)" in d.value.columns)
    wins = sum(bool(t.success) for t in traces)
    assert summary.iloc[0]["success (95% interval)"].startswith(f"{wins}/3 = ")
    links = [str(link.proto.label) for link in at.get("page_link")]
    assert f"Open {path.name} in Browse" in links


def test_a_bad_spec_or_task_list_is_said_and_nothing_runs(folder):
    at = open_page("evaluate")
    at.text_input(key="ev-segmenter").input("sentense").run()
    assert any("unknown segmenter 'sentense'" in e.value for e in at.error)
    assert at.button(key="ev-run").disabled
    at.text_input(key="ev-segmenter").input("sentence").run()
    at.text_input(key="ev-tasks").input("0-x").run()
    assert any("is not a count, a list or a range" in e.value for e in at.error)
    at.text_input(key="ev-tasks").input("3").run()
    at.text_input(key="ev-options").input('{"no_such_option": 1}').run()
    at.button(key="ev-run").click().run()
    assert any("Nothing was started" in e.value for e in at.error)
    assert list(folder.glob("*.jsonl")) == []


def test_stop_keeps_what_finished_and_a_rerun_resumes(folder, monkeypatch):
    held = Held(_scripted(), free=1)  # one task at a time: task 0 ends, then the model waits
    monkeypatch.setattr(evaluate_view, "load_backend", lambda choice, key=None: held)
    at = open_page("evaluate")
    at.text_input(key="ev-tasks").input("3").run()
    at.text_input(key="ev-batch").input("1").run()
    at.button(key="ev-run").click().run()
    job = at.session_state["ev-job"]
    # Stop once task 0 has ended and task 1's call waits: a Stop before the job's first call
    # (the job queue starts it in a thread of its own) would rightly keep nothing
    assert held.held.wait(60)
    at.button(key="ev-stop").click().run()
    assert "Stopping after the segments being generated" in texts(at)
    held.gate.set()
    assert job.wait(60)
    at.run()
    assert not at.exception, at.exception
    [path] = folder.glob("eval-leg_counting-*.jsonl")
    # task 1's call was under way at the stop: it finished and is kept; task 2 never started
    assert [t.task.task_index for t in read_traces(path)] == [0, 1]
    assert any(s.value.startswith("Stopped: 2 of 3 tasks kept") for s in at.success)
    # the same settings again: the finished tasks are kept, the rest run, none twice
    monkeypatch.setattr(evaluate_view, "load_backend", lambda choice, key=None: _scripted())
    _run(at)
    assert [t.task.task_index for t in read_traces(path)] == [0, 1, 2]


def test_a_failing_backend_is_a_message_and_a_rerun_resumes(folder, monkeypatch):
    class Down:
        name = "down"
        capabilities = BackendCapabilities()

        def generate(self, requests):
            raise RuntimeError("the server is down")

    monkeypatch.setattr(evaluate_view, "load_backend", lambda choice, key=None: Down())
    at = open_page("evaluate")
    at.text_input(key="ev-tasks").input("2").run()
    _run(at)
    assert not at.exception
    shown = texts(at) + " ".join(e.value for e in at.error)
    assert "the server is down" in shown


def test_the_answer_opening_checkbox_forces_it_where_an_answer_is_missing(folder, monkeypatch):
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=100, seed=42)
    state, _ = base.reset(options={"task_index": 0})
    # Task 0's script stops without its answer; after the opening it says 100</answer>.
    opening = AnswerOpening()
    script = "I count the legs." + "x" * len(opening.text) + "100</answer>"
    backend = get_backend("scripted", by_prompt={state.observation.prompt: script})
    monkeypatch.setattr(evaluate_view, "load_backend", lambda choice, key=None: backend)
    at = open_page("evaluate")
    at.text_input(key="ev-tasks").input("1").run()
    at.text_input(key="ev-segmenter").input("sentence").run()
    at.text_input(key="ev-max-tokens").input("5").run()
    at.checkbox(key="ev-answer-opening").check().run()
    _run(at)
    assert not at.exception, at.exception
    [trace] = list(read_traces(next(folder.glob("eval-leg_counting-*.jsonl"))))
    assert [s.text for s in trace.segments][-2:] == [opening.text, "100</answer>"]
    assert trace.success
    assert trace.run.spec.answer_opening == opening


# ---- issue 24 -----------------------------------------------------------------------------------


def test_a_task_range_beyond_the_dataset_is_refused_and_a_corrected_box_clears_its_error(folder):
    """Item 1: ``0-99999999`` on 100 tasks is refused, naming the size (it used to build the
    whole range and hang the server: ``tests/core/test_task_spec.py`` checks that no range is
    built); an error goes away, and Run comes back, once the box is corrected."""
    at = open_page("evaluate")
    at.text_input(key="ev-tasks").input("0-99999999").run()
    at.text_input(key="ev-segmenter").input("sentance").run()
    assert [e.value for e in at.error] == [
        "UnknownName: unknown segmenter 'sentance': choose one of: composite, line, llm, "
        "pattern, sentence, steps, token"
    ]
    assert at.button(key="ev-run").disabled
    at.text_input(key="ev-segmenter").input("sentence").run()
    [error] = [e.value for e in at.error]
    assert "tasks 0-99999999: the dataset has 100 tasks (0-99)" in error
    assert at.button(key="ev-run").disabled
    at.text_input(key="ev-size").input("5").run()
    at.text_input(key="ev-tasks").input("6").run()
    assert "tasks 6: the dataset has 5 tasks (0-4); 6 is more than that" in at.error[0].value
    at.text_input(key="ev-tasks").input("0-4").run()
    assert not at.error
    assert not at.button(key="ev-run").disabled


def test_the_boxes_take_the_library_bounds(folder):
    """Item 1: the boxes' limits are the bounds the CLI checks (``llenvs.core._bounds``)."""
    from llenvs.core import BATCH_SIZE, DATASET_SIZE, MAX_TOKENS, SEED

    at = open_page("evaluate")
    at.text_input(key="ev-tasks").input("1").run()
    assert not at.button(key="ev-run").disabled
    for key, bound in [
        ("ev-size", DATASET_SIZE),
        ("ev-seed", SEED),
        ("ev-max-tokens", MAX_TOKENS),
        ("ev-sampling-seed", SEED),
        ("ev-batch", BATCH_SIZE),
    ]:
        box = at.text_input(key=key)
        assert box.label.endswith(f" · {bound.low}..{bound.high}"), key
        before = box.value
        box.input(str(bound.high + 1)).run()  # one past the bound: refused, Run off
        [refused] = [e.value for e in at.error]
        assert f"must be {bound.low}..{bound.high} ({bound.why}), got {bound.high + 1}" in refused
        assert at.button(key="ev-run").disabled, key
        at.text_input(key=key).input(before).run()
        assert not at.error and not at.button(key="ev-run").disabled, key


def test_a_run_whose_tasks_errored_says_so_in_the_headline(
    folder, monkeypatch, smollm2_tokenizer_folder
):
    """Item 9: Settings on an unreachable server (a closed port on 127.0.0.1): the headline is
    an error with the count and the first error in full, not a green "Done"; the summary counts
    the task as an error, not as a failure."""
    import functools
    import socket

    from llenvs.core import RetryPolicy
    from llenvs.workbench.jobs import _evaluation_job as evaluation_job
    from llenvs.workbench.models import Settings, save_settings

    run = functools.partial(
        evaluation_job.run_segmented_evaluation, control=RunControl(retry=RetryPolicy(1))
    )
    monkeypatch.setattr(evaluation_job, "run_segmented_evaluation", run)  # no runner retries

    with socket.socket() as closed:  # a port nothing listens on once it is closed
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    server = {"base_url": url, "tokenizer": str(smollm2_tokenizer_folder)}
    save_settings(folder, Settings(model="openai", location="smollm2", server=server))
    at = open_page("evaluate")
    at.text_input(key="ev-tasks").input("1").run()
    job = _run(at, timeout=120)
    assert job is not None and not at.exception
    assert not at.success, [s.value for s in at.success]
    [headline] = [e.value for e in at.error if "errored" in e.value]
    assert headline.startswith("1 of 1 task errored")
    [trace] = list(read_traces(next(folder.glob("eval-leg_counting-*.jsonl"))))
    assert trace.error and "cannot connect" in trace.error
    assert headline.endswith(f"The first, task 0: {trace.error}")
    assert url in headline
    summary = next(d.value for d in at.dataframe if "success (95% interval)" in d.value.columns)
    assert summary.iloc[0]["success (95% interval)"] == "no verdict"
    assert summary.iloc[0]["errors"] == "task 0"
