import pytest

from llenvs.core import Action, Message, SamplingParams, TerminalStateError
from llenvs.evaluation import COMPLETE, ForceAction, SegmentedTrajectoryRunner
from llenvs.evaluation.episodes import replay_prefix
from llenvs.inference import get_backend
from tests.evaluation.conftest import SCRIPT, SCRIPT_PIECES


def _runner(env, *outputs, **params):
    backend = get_backend("scripted", outputs=list(outputs))
    return SegmentedTrajectoryRunner(env, backend, SamplingParams(**params)), backend


def _texts(result):
    return [t.action.text for t in result.trajectory]


def _replayed(result):
    return [bool(t.info.get("replayed")) for t in result.trajectory]


def test_text_prefix_is_stepped_by_pieces_then_continued_as_prefill(env):
    runner, backend = _runner(env, SCRIPT)
    calls = []
    prefix = "".join(SCRIPT_PIECES[:2])
    result = runner.run_trajectory(0, prefix=prefix, step_callback=calls.append)
    assert _texts(result) == SCRIPT_PIECES
    assert _replayed(result) == [True, True] + [False] * 5
    assert result.metadata["prefix_steps"] == 2
    assert [r.info["segment_index"] for r in calls] == [3, 4, 5, 6, 7]  # not on replayed steps
    first = backend.requests[0].prompt
    assert first.continuation == prefix and first.continuation_token_ids is None
    assert result.success


def test_segment_list_prefix_is_stepped_as_given(env):
    runner, _ = _runner(env, SCRIPT)
    given = ["First, count the animals. There are 3 sea slugs. "]  # one segment, two sentences
    result = runner.run_trajectory(0, prefix=given)
    assert result.trajectory[0].action.text == given[0]
    assert result.metadata["prefix_steps"] == 1
    assert _texts(result)[1:] == SCRIPT_PIECES[2:]


def test_state_action_pairs_are_stepped_from_their_states(env):
    runner, _ = _runner(env, SCRIPT)
    old = runner.run_trajectory(0)
    pairs = [(t.state, t.action) for t in old.trajectory.transitions[:5]]
    result = runner.run_trajectory(0, prefix=pairs)
    assert result.metadata["prefix_steps"] == 5
    assert [t.state for t in result.trajectory[:5]] == [s for s, _ in pairs]
    assert _texts(result) == _texts(old)
    assert [t.rewards.as_dict() for t in result.trajectory] == [
        t.rewards.as_dict() for t in old.trajectory
    ]


def test_prefix_steps_do_not_count_toward_max_steps(env):
    result = _runner(env, SCRIPT)[0].run_trajectory(0, prefix=SCRIPT_PIECES[:3], max_steps=2)
    assert len(result.trajectory) == 5
    assert result.metadata["truncated"]


def test_a_prefix_may_end_the_episode(env):
    runner, backend = _runner(env, SCRIPT)
    result = runner.run_trajectory(0, prefix=SCRIPT)
    assert result.metadata["prefix_steps"] == 7 and result.success
    assert backend.requests == []
    with pytest.raises(ValueError, match="ended the episode"):
        runner.run_trajectory(0, prefix=["<answer>100</answer>", "More."])


def test_bad_prefixes_are_refused(env):
    runner, _ = _runner(env, SCRIPT)
    with pytest.raises(TypeError, match="sequence of segment strings"):
        runner.run_trajectory(0, prefix=[3])
    with pytest.raises(ValueError, match="empty"):
        runner.run_trajectory(0, prefix=["a", ""])


def test_empty_prefixes_are_no_prefix(env):
    for prefix in ("", [], None):
        result = _runner(env, SCRIPT)[0].run_trajectory(0, prefix=prefix)
        assert result.metadata["prefix_steps"] == 0 and _texts(result) == SCRIPT_PIECES


@pytest.mark.parametrize("prefix", ["", "First, count the animals. "])
def test_then_force(env, prefix):
    runner, _ = _runner(env, SCRIPT)
    k = 1 if prefix else 0
    result = runner.run_trajectory(0, prefix=prefix, then=ForceAction(SCRIPT_PIECES[k]))
    assert result.trajectory[k].info["forced"]
    assert [bool(t.info.get("forced")) for t in result.trajectory].count(True) == 1
    assert _texts(result) == SCRIPT_PIECES
    assert result.success


@pytest.mark.parametrize("prefix", ["", "First, count the animals. "])
def test_then_complete(env, prefix):
    runner, backend = _runner(env, SCRIPT)
    calls = []
    result = runner.run_trajectory(0, prefix=prefix, then=COMPLETE, step_callback=calls.append)
    assert calls == []
    assert len(backend.requests) == 1 and backend.requests[0].stop_at is None
    assert _texts(result) == SCRIPT_PIECES
    live = result.trajectory[result.metadata["prefix_steps"] :]
    assert all(t.info["one_shot"] for t in live)


def test_then_feedback_with_an_empty_prefix(env):
    runner, backend = _runner(env, "Recount: 100. <answer>100</answer>")
    result = runner.run_trajectory(0, then="Think carefully.")
    question = env.reset(options={"task_index": 0})[0].observation.prompt
    assert backend.requests[0].prompt.messages == (
        Message("user", question),
        Message("user", "Think carefully."),
    )
    assert result.success


def test_then_feedback_after_a_prefix(env):
    runner, backend = _runner(env, "Recount: 100. <answer>100</answer>")
    result = runner.run_trajectory(0, prefix="So 8. ", then="Wrong, try again.")
    assert backend.requests[0].prompt.messages[1:] == (
        Message("assistant", "So 8. "),
        Message("user", "Wrong, try again."),
    )
    assert backend.requests[0].prompt.continuation == ""
    assert result.text == "So 8. Recount: 100. <answer>100</answer>"
    assert result.success


def test_then_after_a_terminal_prefix(env):
    runner, _ = _runner(env)
    with pytest.raises(TerminalStateError, match="refused"):
        runner.run_trajectory(0, prefix=SCRIPT, then=ForceAction("x"))
    assert runner.run_trajectory(0, prefix=SCRIPT, then=COMPLETE).success


def test_replay_prefix_marks_steps(env):
    state, _ = env.reset(options={"task_index": 0})
    steps = replay_prefix(env, state, [(state, Action("One. "))])
    assert steps[0].info == {"segment_index": 1, "replayed": True}
    assert replay_prefix(env, state, None) == []
