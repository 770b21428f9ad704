"""Issue 17 item 9: a permanent backend error is not retried; a temporary one still is."""

from __future__ import annotations

import pytest

from llenvs.core import RunControl, SegmentedEnvironment, SentenceSegmenter
from llenvs.core.errors import BackendError, PermanentBackendError
from llenvs.evaluation import LogConfig, RetryPolicy, run_segmented_evaluation
from llenvs.inference import get_backend


def test_a_permanent_error_is_raised_at_once_without_waiting():
    waits: list[float] = []
    calls: list[int] = []

    def broken():
        calls.append(1)
        raise PermanentBackendError("no response left")

    with pytest.raises(PermanentBackendError):
        RetryPolicy(sleep=waits.append).call(broken)
    assert calls == [1] and waits == []


def test_a_temporary_error_is_still_retried():
    waits: list[float] = []
    with pytest.raises(BackendError):
        RetryPolicy(sleep=waits.append).call(lambda: (_ for _ in ()).throw(BackendError("busy")))
    assert waits == [1.0, 2.0]


def test_a_scripted_backend_out_of_responses_errors_its_task_without_retries(leg_counting):
    waits: list[float] = []
    env = SegmentedEnvironment(leg_counting, SentenceSegmenter())
    backend = get_backend("scripted", outputs=["Count. <answer>100</answer>"])
    result = run_segmented_evaluation(
        env,
        backend,
        num_tasks=2,
        log=LogConfig(targets=()),
        control=RunControl(retry=RetryPolicy(sleep=waits.append)),
    )
    assert waits == []
    assert result.traces[0].error is None and result.traces[0].success
    assert "PermanentBackendError" in (result.traces[1].error or "")
