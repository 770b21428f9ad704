"""Stored step values read back with no backend: the numbers a budget-0 run gives."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path

import pytest

from llenvs.analysis import (
    AnalysisParams,
    analysis_path,
    analyze_trace,
    stored_forced_answers,
    stored_keys,
    stored_step_analysis,
)
from llenvs.core import Generation, GenerationRequest
from llenvs.evaluation import trace_environment
from llenvs.traces import TraceReader

SAMPLES = Path(__file__).resolve().parents[2] / "sample_traces"


class _NamedOnly:
    """A test double naming a model, as the workbench read stored results before: no output."""

    def __init__(self, name: str) -> None:
        self.name = name

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Generation]:
        raise AssertionError("reading stored step values must not generate")


def _sidecar_traces():
    for store in sorted(SAMPLES.glob("*.analysis.jsonl")):
        trace_file = store.with_name(store.name.replace(".analysis.jsonl", ".jsonl"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for trace in TraceReader(trace_file):
                for key in stored_keys(analysis_path(trace_file), trace.trace_id):
                    yield pytest.param(trace, store, key, id=f"{store.name}-{trace.trace_id[:8]}")


@pytest.mark.parametrize(("trace", "store", "key"), list(_sidecar_traces()))
def test_stored_values_without_a_backend_are_those_of_a_budget_0_run(trace, store, key):
    env = trace_environment(trace)
    fields = {k: key[k] for k in ("temperature", "top_p", "max_tokens", "seed")}
    engine = analyze_trace(
        trace,
        _NamedOnly(key["model"]),
        AnalysisParams(budget=0, **fields),
        store=store,
        environment=env,
    )
    stored = stored_step_analysis(trace, store, key)
    assert stored == engine
    assert stored.rollouts and stored.rounds == 3 and stored.values[-1].exact
    curve = stored_forced_answers(store, trace.trace_id, key["model"])
    assert curve is not None and len(curve) == len(trace.segments) + 1


def test_the_samples_have_an_analysis_sidecar_to_check():
    assert list(_sidecar_traces())
