"""The planned cost, and where ``llenvs.analysis`` sits in the layers."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys

import pytest

from llenvs.analysis import AnalysisParams, SpeedSource, analyze_trace, plan


def test_the_plan_counts_rollouts_tokens_and_seconds(trace):
    params = AnalysisParams(budget=44, max_tokens=64)
    cost = plan(trace, params, stored=4, forced_answer=True, tokens_per_second=20.0)
    assert cost.rollouts == 40 and cost.boundaries == 11 and cost.stored == 4
    assert cost.max_tokens == 40 * 64 + 11 * 16
    assert 0 < cost.estimated_tokens <= 40 * 64
    assert cost.speed_source is SpeedSource.GIVEN
    assert cost.seconds == (cost.estimated_tokens + cost.forced_tokens) / 20.0
    unknown = plan(trace, params)
    assert unknown.seconds is None and "time unknown" in unknown.summary()


def _imported(module):
    code = f"import sys, json; import {module}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return set(json.loads(out.stdout))


@pytest.mark.slow
def test_importing_analysis_imports_no_heavy_library():
    modules = _imported("llenvs.analysis")
    heavy = ["torch", "transformers", "streamlit", "openai", "plotly", "pandas"]
    assert [m for m in heavy if m in modules] == []


@pytest.mark.slow
def test_no_layer_below_imports_analysis():
    for below in ("llenvs.evaluation", "llenvs.rewards", "llenvs.traces", "llenvs.inference"):
        assert not any(m.startswith("llenvs.analysis") for m in _imported(below)), below


def test_the_estimate_comes_from_the_rollouts_real_token_counts(trace, coin, environment):
    first = AnalysisParams(budget=22, max_tokens=96)
    made = analyze_trace(trace, coin, first, environment=environment).rollouts
    per_boundary = {
        b: statistics.fmean(r.tokens for r in made if r.boundary == b) for b in range(11)
    }
    more = plan(trace, AnalysisParams(budget=44, max_tokens=96), stored=22, measured=made)
    assert more.measured == 22
    assert more.estimated_tokens == round(22 * statistics.fmean(per_boundary.values()))
    guessed = plan(trace, AnalysisParams(budget=44, max_tokens=96), stored=22)
    assert guessed.estimated_tokens != more.estimated_tokens  # the trace's own length differs
    assert "from 22 rollouts made" in more.summary()
