"""The rollouts engine: one batch per round, failures kept apart, forced answers."""

from __future__ import annotations

from llenvs.analysis import AnalysisParams, analyze_trace, forced_answers, run_rollouts
from llenvs.core import BackendCapabilities, RunControl
from llenvs.core.errors import BackendError
from llenvs.evaluation import NO_RETRY
from tests.analysis.conftest import TRUE_VALUES


class Failing:
    """The coin backend, failing every request whose seed is divisible by 3."""

    name = "coin"

    capabilities = BackendCapabilities()

    def __init__(self, coin):
        self.coin = coin

    def generate(self, requests):
        if any(r.params.seed % 3 == 0 for r in requests):
            raise BackendError("server busy")
        return self.coin.generate(requests)


def test_a_round_is_one_batch_of_many_prefixes_and_seeds(trace, coin, environment):
    calls = []
    generate = coin.generate

    class Counting:
        name = "coin"
        capabilities = BackendCapabilities()

        def generate(self, requests):
            calls.append(len(requests))
            return generate(requests)

    params = AnalysisParams(budget=22, width=0.01, seed=2)
    analysis = analyze_trace(trace, Counting(), params, environment=environment)
    assert analysis.rounds == 1 and calls == [22]  # 11 boundaries x 2, in one call


def test_failed_rollouts_are_kept_but_not_counted(trace, coin, environment):
    jobs = [(b, n) for b in range(3) for n in range(6)]
    rollouts = run_rollouts(
        trace,
        jobs,
        Failing(coin),
        AnalysisParams(seed=0),
        environment=environment,
        control=RunControl(retry=NO_RETRY),
    )
    failed = [r for r in rollouts if r.error is not None]
    assert failed and all("server busy" in r.error for r in failed)
    assert all(r.seed % 3 == 0 for r in failed)


def test_forced_answers_follow_the_values(trace, coin, environment):
    answers = forced_answers(trace, coin, environment)
    assert [a.boundary for a in answers] == list(range(len(TRUE_VALUES)))
    assert [a.correct for a in answers] == [v >= 0.5 for v in TRUE_VALUES]
