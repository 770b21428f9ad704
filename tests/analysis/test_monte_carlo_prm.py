"""``MonteCarloPRM``: v_{i+1} as the PRM score of step i, through the PRM protocol."""

from __future__ import annotations

import pytest

from llenvs.analysis import MonteCarloPRM
from llenvs.rewards import PRM, get_prm, score_traces
from tests.analysis.conftest import TRUE_VALUES


def test_get_prm_mc_scores_each_step_by_the_value_after_it(trace, coin, environment):
    prm = get_prm("mc", backend=coin, environment=environment, rollouts=40, seed=1)
    assert isinstance(prm, MonteCarloPRM) and isinstance(prm, PRM)
    steps = [s.text for s in trace.segments]
    [scores] = score_traces(prm, [(trace.task.prompt, steps)])
    assert len(scores) == len(steps)
    assert all(abs(s - v) < 0.25 for s, v in zip(scores, TRUE_VALUES[1:], strict=True))


def test_scores_are_cached_by_prefix(trace, coin, environment):
    prm = MonteCarloPRM(coin, environment, rollouts=5)
    steps = [s.text for s in trace.segments]
    first = prm.score_steps(trace.task.prompt, steps[:3])
    asked = len(coin.requests)
    longer = prm.score_steps(trace.task.prompt, steps[:4])
    assert longer[:3] == first and len(coin.requests) - asked == 5


def test_the_question_must_be_one_of_the_environment_tasks(coin, environment):
    prm = MonteCarloPRM(coin, environment, rollouts=1)
    with pytest.raises(ValueError, match="is none of the 100 tasks of 'leg_counting'"):
        prm.score_steps("What is 2 + 2?", ["4."])


def test_mc_needs_a_backend_and_an_environment():
    with pytest.raises(ValueError, match="the mc PRM needs backend="):
        get_prm("mc")


def test_mc_fills_the_prm_column_of_a_replayed_trace(trace, coin, environment):
    from llenvs.core import SegmentedEnvironment
    from llenvs.rewards import prm_rewards

    base = environment.base_env
    rewards = prm_rewards("mc", backend=coin, environment=environment, rollouts=30, seed=2)
    scored = SegmentedEnvironment(
        base, environment.segmenter, reward_functions=(*rewards, *base.reward_functions)
    )
    state, _ = scored.reset(options={"task_index": trace.task.task_index})
    results = scored.replay(state, trace.response)
    assert len(results) == len(trace.segments)
    prm = [r.rewards["prm"].reward for r in results]
    assert all(abs(s - v) < 0.3 for s, v in zip(prm[:-1], TRUE_VALUES[1:-1], strict=True))
