"""Branches are exact and on the same task (issue 17, items 1–3; DESIGN "Runner semantics").

- A greedy resample at any segment reproduces the parent: the kept prefix is fed as the
  parent's own token ids (healing a token that runs across the cut), not re-tokenised text.
- Feedback after the final segment is a new user turn the model answers; COMPLETE or a
  resample there has nothing to do and says so.
- A branch of a feedback branch replays that feedback.
- Task i is the same question in every process; a trace whose task cannot be made again is
  refused rather than branched on another question.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from llenvs.core import (
    COMPLETE,
    Feedback,
    Resample,
    SamplingParams,
    SegmentedEnvironment,
    SentenceSegmenter,
)
from llenvs.core.registry import environment_registry
from llenvs.core.run_spec import ModelSpec, RunSpec
from llenvs.evaluation import (
    BranchRequest,
    SegmentedTrajectoryRunner,
    branch,
    replay_trace,
    result_trace,
    trace_base_environment,
)
from llenvs.inference import backend_spec
from llenvs.inference._backends.scripted import ScriptedBackend
from llenvs.traces import SegmentFlag, TaskRecord
from llenvs.traces.records import Trace
from tests.inference.precisions import NEAR_TIE, backend_in

WRONG = "Count the animals. Deer have 4 legs. So 12 deer have 40. <answer>40</answer>"


@pytest.fixture
def parent(leg_counting):
    return replay_trace(SegmentedEnvironment(leg_counting, SentenceSegmenter()), 0, WRONG, "m")


def _forget_sessions(backend):
    """Drop the backend's KV sessions: the branch starts as it would in a fresh process."""
    for session in list(backend.sessions):
        backend.sessions.discard(session)


def _logprob_at(parent: Trace, char: int, tokenizer) -> float:
    """The log-probability the parent gave the token that wrote its response's ``char``."""
    ids = [i for s in parent.segments for i in s.token_ids or ()]
    logprobs = [p for s in parent.segments for p in s.logprobs or ()]
    for count in range(1, len(ids) + 1):
        if len(tokenizer.decode(ids[:count])) > char:
            return logprobs[count - 1]
    raise AssertionError(f"no token of the parent writes character {char}")


@pytest.mark.parametrize(
    ("name", "task", "segmenter", "precision"),
    [
        ("basic_arithmetic", 1, "sentence", "float32"),
        ("basic_arithmetic", 3, "steps", "float32"),
        ("leg_counting", 1, "steps", "float32"),
        ("basic_arithmetic", 1, "sentence", "bfloat16"),
    ],
)
def test_a_greedy_resample_at_any_segment_reproduces_the_parent(
    embedded_backend, name, task, segmenter, precision
):
    """float32 (the default on every CPU): the parent again, byte for byte. bfloat16: the
    parent again up to rounding (``tests/inference/precisions.py``): a resample prefills what
    the parent decoded, so they may part at a near-tie, never where the model was sure."""
    backend = backend_in(embedded_backend, precision)
    base = environment_registry.get(name=name, adapter="reasoning_gym", size=10, seed=42)
    env = SegmentedEnvironment(base, segmenter)
    params = SamplingParams(max_tokens=120, logprobs=True)
    runner = SegmentedTrajectoryRunner(env, backend, params)
    spec = RunSpec(model=backend_spec(backend), sampling=runner.sampling_params)
    parent = result_trace(runner.run_trajectory(task), env, spec)
    assert len(parent.segments) >= 2
    if precision == "bfloat16":
        for at in range(len(parent.segments)):
            [child] = branch(BranchRequest(parent, at, Resample()), backend)
            # a parent that ended by its budget goes on further in a branch (its budget
            # counts what it generates): compare the text both have
            pairs = enumerate(zip(child.response, parent.response, strict=False))
            parted = next((i for i, (a, b) in pairs if a != b), None)
            if parted is None and len(child.response) < len(parent.response):
                parted = len(child.response)  # the child ended where the parent went on
            if parted is not None:
                assert _logprob_at(parent, parted, backend.tokenizer) < NEAR_TIE, (at, parted)
        return
    # a branch's budget counts what it generates: a parent that ended by its own budget would
    # end later in a branch, so these tasks end by the model's end of turn
    assert parent.metadata["finish_reason"] == "stop"
    for at in range(len(parent.segments)):
        _forget_sessions(backend)
        [child] = branch(BranchRequest(parent, at, Resample()), backend)
        assert [s.text for s in child.segments] == [s.text for s in parent.segments], at
        assert child.response == parent.response


def test_the_kept_prefix_goes_to_the_backend_as_the_parents_token_ids(leg_counting):
    env = SegmentedEnvironment(leg_counting, SentenceSegmenter())
    backend = ScriptedBackend(["Count the animals. Deer have 4 legs. <answer>4</answer>"])
    parent = result_trace(
        SegmentedTrajectoryRunner(env, backend).run_trajectory(0),
        env,
        RunSpec(model=ModelSpec.parse("scripted"), sampling=SamplingParams()),
    )
    again = ScriptedBackend(["Deer have 4 legs. <answer>4</answer>"])
    branch(BranchRequest(parent, 1, Resample()), again)
    prompt = again.requests[0].prompt
    assert prompt.continuation == "Count the animals. "
    assert prompt.continuation_hint_ids == parent.segments[0].token_ids


def test_feedback_after_the_final_segment_is_answered(parent):
    backend = ScriptedBackend(["Recounting: 100. <answer>100</answer>"])
    [child] = branch(BranchRequest(parent, len(parent.segments), Feedback("Recount.")), backend)
    assert [m.role for m in child.messages] == ["user", "assistant", "user", "assistant"]
    assert child.messages[2].content == "Recount."
    assert child.messages[3].content == "Recounting: 100. <answer>100</answer>"
    kept = child.segments[len(parent.segments) - 1]
    assert SegmentFlag.FEEDBACK_AFTER in kept.flags and not kept.terminal
    assert "correctness" not in kept.rewards  # judged once, on the new last step
    assert child.segments[-1].terminal and child.success
    assert child.segments[-1].text == "Recounting: 100. <answer>100</answer>"
    assert sum(s.terminal for s in child.segments) == 1


@pytest.mark.parametrize("kind", [COMPLETE, Resample()])
def test_complete_or_resample_after_the_final_segment_says_there_is_nothing_to_do(parent, kind):
    backend = ScriptedBackend(["never used"])
    with pytest.raises(ValueError, match=r"nothing to .* the trace ended there .* choose 0\.\.2"):
        branch(BranchRequest(parent, len(parent.segments), kind), backend)
    assert backend.requests == []


def test_a_branch_of_a_feedback_branch_replays_the_feedback(parent):
    [first] = branch(
        BranchRequest(parent, 2, Feedback("Recount the deer.")),
        ScriptedBackend(["Twelve deer: 48. So 48 more. <answer>48</answer>"]),
    )
    backend = ScriptedBackend(["Twelve deer: 48. So 48. <answer>48</answer>"])
    [second] = branch(BranchRequest(first, 3, Resample()), backend)
    sent = backend.requests[0].prompt
    assert [m.role for m in sent.messages] == ["user", "assistant", "user"]
    assert sent.messages[2].content == "Recount the deer."
    assert sent.continuation == "Twelve deer: 48. "
    assert [m.content for m in second.messages] == [
        *[m.content for m in first.messages][:3],
        "Twelve deer: 48. So 48. <answer>48</answer>",
    ]
    assert second.metadata["feedback"] == [{"after_segment": 2, "text": "Recount the deer."}]


def test_feedback_at_the_branch_point_is_replaced_by_new_feedback(parent):
    [first] = branch(
        BranchRequest(parent, 2, Feedback("Recount.")),
        ScriptedBackend(["Forty. <answer>40</answer>"]),
    )
    [second] = branch(
        BranchRequest(first, 2, Feedback("Count the deer again.")),
        ScriptedBackend(["48. <answer>48</answer>"]),
    )
    assert [m.content for m in second.messages if m.role == "user"][1:] == ["Count the deer again."]


@pytest.mark.slow
def test_tasks_are_the_same_question_in_every_process():
    code = (
        "from llenvs.core.registry import environment_registry as r\n"
        "e = r.get(name='leg_counting', adapter='reasoning_gym')\n"
        "print(e.task(0).question, e.spec.kwargs['seed'])\n"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
        for _ in range(3)
    }
    assert len(runs) == 1 and runs.pop().strip().endswith(" 42")


def test_a_trace_whose_task_cannot_be_made_again_is_branched_on_its_own_task_record(leg_counting):
    record = TaskRecord(
        "leg_counting",
        "reasoning_gym",
        {"size": 100},
        0,
        "How many legs do 10 butterflys have?",
        None,
        "60",
    )
    trace = Trace(task=record, response="", segments=())
    backend = ScriptedBackend(["Six each: <answer>60</answer>"])
    [child] = branch(BranchRequest(trace, 0, Resample()), backend)
    assert backend.requests[0].prompt.messages[-1].content == record.prompt
    assert child.task.prompt == record.prompt and child.task.adapter == "task_record"
    assert child.success  # math-verify against the recorded answer
    _, why = trace_base_environment(trace)
    assert "asks another question" in why and "branched on its own task record" in why


def test_an_imported_trace_is_branched_on_its_task_record(tmp_path):
    from llenvs.traces.importers import TraceImport
    from tests.conftest import EXTERNAL

    imported = next(iter(TraceImport("reasoning_gym", EXTERNAL / "real_responses.jsonl")))
    assert imported.task.expected_answer is not None and len(imported.segments) >= 2
    script = imported.segments[0].text + "<answer>" + imported.task.expected_answer + "</answer>"
    [child] = branch(BranchRequest(imported, 1, Resample()), ScriptedBackend([script]))
    assert child.task.prompt == imported.task.prompt and child.success


def test_an_explicit_environment_of_another_task_is_refused(leg_counting):
    record = TaskRecord(
        "leg_counting",
        "reasoning_gym",
        {"size": 100, "seed": 42},
        0,
        "How many legs do 10 butterflys have?",
    )
    trace = Trace(task=record, response="", segments=())
    env = SegmentedEnvironment(leg_counting, SentenceSegmenter())
    with pytest.raises(ValueError, match=r"is not the trace's: .* another question"):
        branch(BranchRequest(trace, 0, Resample()), ScriptedBackend(["x"]), environment=env)
