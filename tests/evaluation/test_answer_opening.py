"""The answer opening: forced when a response ends without an answer, never otherwise."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from llenvs.analysis.sampling import AnalysisParams, run_rollouts
from llenvs.core import Force, SamplingParams
from llenvs.evaluation import (
    BranchRequest,
    ForceAction,
    LogConfig,
    SegmentedTrajectoryRunner,
    branch,
    run_segmented_evaluation,
)
from llenvs.evaluation.episodes import DEFAULT_TEXT, AnswerOpening
from llenvs.inference import get_backend
from llenvs.traces import TraceReader

OPENING = AnswerOpening("<answer>", max_tokens=8)
# The scripted backend resumes a script at the length of the open turn: the 8 characters the
# forced "<answer>" takes are skipped, so after it the model "says" 100</answer>.
REASONING = "Total: 48 + 8 + 44 = 100."
SCRIPT = REASONING + "SKIPPED!" + "100</answer>"


def _runner(env, script, opening=OPENING, max_tokens=10):
    backend = get_backend("scripted", outputs=[script])
    params = SamplingParams(max_tokens=max_tokens)
    return SegmentedTrajectoryRunner(env, backend, params, answer_opening=opening)


def _evaluated(env, tmp_path, script, max_tokens):
    """The trace of task 0 from ``run_segmented_evaluation`` with ``OPENING``, read back."""
    output = tmp_path / "run.jsonl"
    run_segmented_evaluation(
        env,
        get_backend("scripted", outputs=[script]),
        num_tasks=1,
        sampling_params=SamplingParams(max_tokens=max_tokens),
        log=LogConfig(targets=()),
        results_file=output,
        answer_opening=OPENING,
    )
    (trace,) = list(TraceReader(output))
    return trace


def test_a_response_cut_by_its_budget_gets_the_opening_and_answers_after_it(env):
    # 10 pseudo-tokens end the budget right after "= 100.": no answer, so "<answer>" is forced.
    result = _runner(env, SCRIPT).run_trajectory(0)
    texts = [t.action.text for t in result.trajectory]
    assert texts[-2:] == ["<answer>", "100</answer>"]
    assert result.trajectory[-2].info["forced"] is True
    assert not result.trajectory[-1].info.get("forced")
    assert result.success
    assert result.metadata["answer_opened"] is True
    assert result.metadata["budget_exhausted"] is False  # the opening brought 8 more tokens
    assert result.metadata["generated_tokens"] > 10


def test_a_response_that_ended_without_an_answer_gets_the_opening(env):
    # The script ends (end of sequence) before any answer; after the opening nothing is left.
    result = _runner(env, REASONING, max_tokens=100).run_trajectory(0)
    texts = [t.action.text for t in result.trajectory]
    assert texts[-2:] == [REASONING, "<answer>"]  # the model said nothing more: no empty step
    assert result.trajectory[-1].info["forced"] is True
    assert result.trajectory[-1].result.terminated  # the environment judged the response
    assert not result.success
    assert result.metadata["answer_opened"] is True


def test_a_response_with_its_answer_is_left_alone(env):
    script = REASONING + " <answer>100</answer>"
    result = _runner(env, script, max_tokens=100).run_trajectory(0)
    assert result.text == script
    assert not any(t.info.get("forced") for t in result.trajectory)
    assert result.metadata["answer_opened"] is False


def test_an_opened_answer_is_forced_once_even_when_the_model_says_nothing(env):
    result = _runner(env, REASONING, AnswerOpening("Answer: ", 4, "Answer:"), 100).run_trajectory(0)
    assert [t.action.text for t in result.trajectory].count("Answer: ") == 1


def test_a_model_that_says_nothing_after_the_opening_leaves_no_empty_segment(env):
    # Invariant 1: segments are never empty. The forced opening is then the last segment: the
    # terminal step, with the outcome judged on the whole response.
    result = _runner(env, REASONING, AnswerOpening("Answer: ", 4, "Answer:"), 100).run_trajectory(0)
    steps = list(result.trajectory)
    assert all(t.action.text for t in steps), [t.action.text for t in steps]
    last = steps[-1]
    assert last.action.text == "Answer: " and last.info["forced"] is True
    assert last.result.done and last.action.final
    assert {s.name for s in last.result.rewards} >= {"correctness", "format"}
    assert not any(t.result.done for t in steps[:-1])


def test_a_forced_last_segment_the_model_does_not_continue_is_the_terminal_step(env):
    backend = get_backend("scripted", outputs=["Two plus two. "])
    runner = SegmentedTrajectoryRunner(env, backend, SamplingParams(max_tokens=50))
    result = runner.run_trajectory(0, then=ForceAction("Two plus two. "))
    assert [t.action.text for t in result.trajectory] == ["Two plus two. "]
    assert result.trajectory[-1].result.done


def test_without_an_opening_nothing_is_forced(env):
    result = _runner(env, SCRIPT, opening=None).run_trajectory(0)
    assert not any(t.info.get("forced") for t in result.trajectory)
    assert result.metadata["answer_opened"] is False
    assert result.metadata["budget_exhausted"] is True


def test_the_evaluation_records_the_opening_in_every_trace(env, tmp_path):
    trace = _evaluated(env, tmp_path, SCRIPT, 10)
    assert trace.success
    assert trace.run.spec.answer_opening == OPENING
    assert [s.text for s in trace.segments][-2:] == ["<answer>", "100</answer>"]


@pytest.mark.parametrize("bad", [dict(text=""), dict(max_tokens=0)])
def test_a_bad_opening_is_refused(bad):
    with pytest.raises(ValueError, match="answer opening"):
        AnswerOpening(**bad)


@pytest.mark.slow
def test_the_cli_forces_the_default_opening(tmp_path):
    responses = tmp_path / "responses.jsonl"
    # After the default opening (24 characters) the script resumes at "100</answer>".
    responses.write_text(json.dumps(REASONING + "x" * len(DEFAULT_TEXT) + "100</answer>") + "\n")
    output = tmp_path / "out.jsonl"
    command = [
        *(sys.executable, "-m", "llenvs.cli.main", "evaluate", "--env", "leg_counting"),
        *("--size", "100", "--seed", "42", "--num-tasks", "1", "--segmenter", "sentence"),
        *("--backend", "scripted", "--responses", str(responses), "--max-tokens", "10"),
        *("--answer-opening", "--no-log", "--no-progress", "-o", str(output)),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    (trace,) = list(TraceReader(output))
    assert [s.text for s in trace.segments][-2:] == [DEFAULT_TEXT, "100</answer>"]
    assert trace.success
    assert trace.run.spec.answer_opening == AnswerOpening()


def test_a_branch_opens_a_missing_answer_as_its_parent_did(env, tmp_path):
    parent = _evaluated(env, tmp_path, REASONING, 100)
    # Force the first segment; the model then stops without an answer, so the opening comes.
    backend = get_backend("scripted", outputs=["Count the legs."])
    [child] = branch(BranchRequest(parent, 0, Force("Count the legs.")), backend)
    assert [s.text for s in child.segments] == ["Count the legs.", "<answer>"]
    assert child.segments[1].flags == parent.segments[-1].flags  # forced, as in the parent
    assert child.run.spec.answer_opening == parent.run.spec.answer_opening


def test_rollouts_open_a_missing_answer_as_the_trace_did(env, tmp_path):
    trace = _evaluated(env, tmp_path, REASONING, 100)
    # From before segment 0 the model says the reasoning again and stops; the opening follows,
    # and the rest of the script (after the 8 skipped characters) is its answer.
    backend = get_backend("scripted", outputs=[SCRIPT])
    params = AnalysisParams(temperature=0.0, max_tokens=10)
    (rollout,) = run_rollouts(trace, [(0, 0)], backend, params, environment=env)
    assert "<answer>" in rollout.text
    assert rollout.success, rollout.text
