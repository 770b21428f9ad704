"""Fixtures of the analysis tests: a sample trace, its known step values, the coin backend."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from llenvs.evaluation import trace_environment
from llenvs.traces import Trace, read_traces
from tests.analysis.coin_backend import CoinBackend

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "tests" / "data" / "leg_counting_first_two.jsonl"
"""The first two traces of ``sample_traces/leg_counting-smollm2.jsonl`` as first recorded (10
and 2 segments), kept here so that re-recording the sample set leaves these tests as they are."""

TRUE_VALUES = (0.3, 0.3, 0.3, 0.65, 0.95, 0.97, 0.98, 0.98, 0.99, 0.99, 0.99)
"""The success probability before each segment of the open trace (boundaries 0..10)."""

MOST_IMPORTANT = 2
"""The step with the largest |v_{i+1} - v_i| under TRUE_VALUES (0.3 -> 0.65)."""


def open_trace() -> Trace:
    """The first sample trace, its last segment made non-terminal: every boundary is sampled."""
    trace = next(iter(read_traces(SAMPLE)))
    segments = list(trace.segments)
    segments[-1] = dataclasses.replace(segments[-1], terminal=False)
    return dataclasses.replace(trace, segments=tuple(segments))


@pytest.fixture(scope="session")
def trace() -> Trace:
    return open_trace()


@pytest.fixture(scope="session")
def coin(trace) -> CoinBackend:
    return CoinBackend(trace, TRUE_VALUES, str(trace.task.expected_answer))


@pytest.fixture(scope="session")
def environment(trace, coin):
    return trace_environment(trace, coin)


@pytest.fixture
def sample_copy(tmp_path) -> Path:
    """A copy of the sample trace file (the analysis sidecar is written beside it)."""
    target = tmp_path / SAMPLE.name
    shutil.copy(SAMPLE, target)
    return target
