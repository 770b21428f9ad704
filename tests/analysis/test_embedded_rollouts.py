"""On the embedded model: k rollouts from one prefix differ, and the same seed repeats them."""

from __future__ import annotations

from llenvs.analysis import AnalysisParams, run_rollouts
from llenvs.evaluation import trace_environment
from llenvs.traces import find_trace
from tests.analysis.conftest import SAMPLE


def test_rollouts_differ_from_each_other_and_repeat_with_the_same_seed(embedded_backend):
    trace = find_trace(SAMPLE, "2")
    environment = trace_environment(trace, embedded_backend)
    params = AnalysisParams(temperature=1.0, max_tokens=12, seed=5)
    jobs = [(1, 0), (1, 1), (1, 2)]
    first = run_rollouts(trace, jobs, embedded_backend, params, environment=environment)
    texts = [r.text for r in first]
    assert all(texts) and len(set(texts)) == len(texts)
    assert len({r.seed for r in first}) == 3
    again = run_rollouts(trace, jobs, embedded_backend, params, environment=environment)
    assert again == first
