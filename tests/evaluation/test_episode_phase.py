"""Episode phases: every move in the table is made by a real episode, and no other is allowed."""

from __future__ import annotations

import pytest

from llenvs.core import RetryPolicy, RunControl, SamplingParams, SegmentedEnvironment, StopToken
from llenvs.core.errors import EpisodePhaseError, PermanentBackendError
from llenvs.core.registry import environment_registry
from llenvs.evaluation import COMPLETE
from llenvs.evaluation.episodes import (
    TRANSITIONS,
    AnswerOpening,
    BoundaryContinuationStrategy,
    Episode,
    EpisodePhase,
    EpisodeStart,
    run_episodes,
)
from llenvs.inference import get_backend

P = EpisodePhase
NO_WAIT = RetryPolicy(attempts=1, backoff_s=0.0)


@pytest.fixture
def moves(monkeypatch):
    """Every move any episode makes during the test, as (from, to) pairs."""
    made: set[tuple[EpisodePhase, EpisodePhase]] = set()
    move_to = EpisodePhase.move_to

    def recording(self, target):
        if target is not self:
            made.add((self, target))
        return move_to(self, target)

    monkeypatch.setattr(EpisodePhase, "move_to", recording)
    return made


def _episode(outputs, prefix=None, then=None, **kwargs):
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
    env = SegmentedEnvironment(base, "sentence")
    params = SamplingParams(max_tokens=kwargs.pop("max_tokens", 64))
    strategy = BoundaryContinuationStrategy(env.segmenter)
    episode = Episode(env, strategy, params, 0, start=EpisodeStart(prefix, then), **kwargs)
    run_episodes(get_backend("scripted", outputs=outputs), [episode], NO_WAIT)
    return episode


_STOPPED = StopToken()
_STOPPED.stop()


def _once(value):
    """A step callback that returns ``value`` on its first call, then nothing."""
    calls = []

    def callback(result):
        calls.append(result)
        return value if len(calls) == 1 else None

    return callback


SCENARIOS = {
    "generated to the end": lambda: _episode(["One. Two. <answer>4</answer>"]),
    "a terminal prefix": lambda: _episode([], prefix="Two dogs. <answer>8</answer>"),
    "complete": lambda: _episode(["One. <answer>4</answer>"], then=COMPLETE),
    "max_steps while generating": lambda: _episode(["One. Two. Three."], max_steps=1),
    "stopped": lambda: _episode(["One."], control=RunControl(stop=_STOPPED)),
    "stopped while completing": lambda: _episode(
        ["One."], then=COMPLETE, control=RunControl(stop=_STOPPED)
    ),
    "failed": lambda: _episode([]),
    "failed while completing": lambda: _episode([], then=COMPLETE),
    "a terminal answer opening after complete": lambda: _episode(
        ["Four legs."], then=COMPLETE, answer_opening=AnswerOpening("<answer>4</answer>")
    ),
    "max_steps at the answer opening after complete": lambda: _episode(
        ["Four legs."], then=COMPLETE, max_steps=2, answer_opening=AnswerOpening("<answer>")
    ),
    "complete, then the answer opening": lambda: _episode(
        ["Four legs."], step_callback=_once(COMPLETE), answer_opening=AnswerOpening()
    ),
    "the answer opening after generation ended": lambda: _episode(
        ["Four legs."], answer_opening=AnswerOpening()
    ),
    "max_steps after generation ended": lambda: _episode(
        ["Four legs."], max_steps=1, answer_opening=AnswerOpening()
    ),
    "max_steps after complete": lambda: _episode(
        ["One. Two. <answer>4</answer>"], then=COMPLETE, max_steps=1
    ),
    "feedback after the terminal step": lambda: _episode(
        ["<answer>4</answer>", "<answer>5</answer>"], step_callback=_once("Check it.")
    ),
    "feedback after max_steps": lambda: _episode(
        ["One. Two.", "<answer>5</answer>"], max_steps=1, step_callback=_once("Go on.")
    ),
}


def test_every_move_in_the_table_is_made_by_a_real_episode_and_none_other(moves):
    ends = {name: make().phase for name, make in SCENARIOS.items()}
    legal = {(a, b) for a, targets in TRANSITIONS.items() for b in targets}
    assert moves == legal
    assert ends["stopped"] is P.STOPPED and ends["failed"] is P.FAILED
    assert ends["max_steps while generating"] is P.TRUNCATED


def test_the_phase_says_what_the_episode_result_reports():
    stopped = _episode(["One."], control=RunControl(stop=_STOPPED)).result()
    failed = _episode([])
    assert (stopped.metadata["stopped"], stopped.metadata["truncated"]) == (True, True)
    assert failed.result().error is not None and failed.error.startswith("PermanentBackendError")
    opened = _episode(["Four legs."], answer_opening=AnswerOpening()).result()
    assert opened.metadata["answer_opened"] is True


def test_a_move_not_in_the_table_raises_naming_both_phases():
    finished = _episode([], prefix="Two dogs. <answer>8</answer>")
    assert finished.phase is P.FINISHED
    with pytest.raises(EpisodePhaseError, match="cannot go from finished to failed"):
        finished.fail(PermanentBackendError("late"))
    with pytest.raises(EpisodePhaseError, match="cannot go from stopped to generating"):
        P.STOPPED.move_to(P.GENERATING)
    assert P.FAILED.move_to(P.FAILED) is P.FAILED  # staying put is no move
