"""Results are stored, not recomputed: rounds appended as they finish, resumed after a stop."""

from __future__ import annotations

import json

import pytest

from llenvs.analysis import (
    AnalysisFileError,
    AnalysisParams,
    RoundDone,
    analysis_key,
    analysis_path,
    analyze_trace,
    read_analysis,
)
from llenvs.core import RunControl, Stopped, StopToken, fan_out

PARAMS = AnalysisParams(budget=60, width=0.2, seed=11)


def _stop_after(rounds, token):
    """An observer that stops ``token`` once ``rounds`` rounds are stored."""

    def observe(event):
        if isinstance(event, RoundDone) and event.rounds == rounds:
            token.stop()

    return observe


def _keys(analysis):
    return sorted((r.boundary, r.number) for r in analysis.rollouts)


def test_an_interrupted_run_resumes_to_the_same_rollouts(tmp_path, trace, coin, environment):
    whole = analyze_trace(
        trace, coin, PARAMS, store=tmp_path / "whole.analysis.jsonl", environment=environment
    )
    store = tmp_path / "cut.analysis.jsonl"
    token, events = StopToken(), []
    observe = fan_out(_stop_after(1, token), events.append)
    cut = analyze_trace(
        trace,
        coin,
        PARAMS,
        store=store,
        environment=environment,
        control=RunControl(observe, token),
    )
    assert events[-1] == Stopped(kept=len(cut.rollouts))  # the stop is the last event
    assert [e.rounds for e in events if isinstance(e, RoundDone)] == [1]
    kept = read_analysis(store, trace.trace_id, analysis_key(coin.name, PARAMS))
    assert kept.rounds == 1 and 0 < len(kept.rollouts) < len(whole.rollouts)
    resumed = analyze_trace(trace, coin, PARAMS, store=store, environment=environment)
    assert resumed.resumed == len(kept.rollouts)
    assert len(resumed.rollouts) == len(whole.rollouts)
    assert len(set(_keys(resumed))) == len(resumed.rollouts)  # none duplicated
    assert sorted(resumed.rollouts, key=lambda r: (r.boundary, r.number)) == sorted(
        whole.rollouts, key=lambda r: (r.boundary, r.number)
    )
    assert [v.value for v in resumed.values] == [v.value for v in whole.values]


def test_a_finished_run_is_read_back_not_recomputed(tmp_path, trace, coin, environment):
    store = tmp_path / "runs.analysis.jsonl"
    first = analyze_trace(trace, coin, PARAMS, store=store, environment=environment)
    asked = len(coin.requests)
    again = analyze_trace(trace, coin, PARAMS, store=store, environment=environment)
    assert len(coin.requests) == asked
    assert again.resumed == len(first.rollouts) and again.values == first.values


def test_a_larger_budget_extends_the_stored_rollouts(tmp_path, trace, coin, environment):
    store = tmp_path / "runs.analysis.jsonl"
    small = AnalysisParams(budget=22, width=0.01, seed=4)
    analyze_trace(trace, coin, small, store=store, environment=environment)
    large = AnalysisParams(budget=44, width=0.01, seed=4)
    more = analyze_trace(trace, coin, large, store=store, environment=environment)
    assert more.resumed == 22 and len(more.rollouts) == 44
    assert len(set(_keys(more))) == 44


def test_other_sampling_parameters_are_other_results(tmp_path, trace, coin, environment):
    store = tmp_path / "runs.analysis.jsonl"
    analyze_trace(trace, coin, PARAMS, store=store, environment=environment)
    hotter = AnalysisParams(budget=60, width=0.2, seed=11, temperature=1.0)
    assert analyze_trace(trace, coin, hotter, store=store, environment=environment).resumed == 0


def test_a_bad_line_names_the_file_and_the_line(tmp_path, trace, coin, environment):
    store = tmp_path / "runs.analysis.jsonl"
    analyze_trace(trace, coin, PARAMS, store=store, environment=environment)
    lines = store.read_text().splitlines()
    record = json.loads(lines[0])
    record["rollouts"][0]["success"] = "yes"
    store.write_text("\n".join([lines[0], json.dumps(record), "{not json", *lines[1:]]) + "\n")
    with pytest.raises(AnalysisFileError, match=r"runs\.analysis\.jsonl, line 2: .*success"):
        read_analysis(store, trace.trace_id, analysis_key(coin.name, PARAMS))
    store.write_text("\n".join([lines[0], "{not json"]) + "\n")
    with pytest.raises(AnalysisFileError, match=r"runs\.analysis\.jsonl, line 2: not JSON"):
        analyze_trace(trace, coin, PARAMS, store=store, environment=environment)


def test_the_sidecar_sits_next_to_the_trace_file(tmp_path):
    assert analysis_path(tmp_path / "runs.jsonl") == tmp_path / "runs.analysis.jsonl"
