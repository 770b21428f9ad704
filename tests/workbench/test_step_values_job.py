"""``StepValuesJob``: progress from the start and as tokens come, and a Stop within one step.

The ``Ticker`` backend decodes its requests in lockstep, one token per row per step, and reads
each request's ``stop_at`` after every token, as the transformers backend does; it counts its
steps, so the tests count backend steps, not seconds.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from llenvs.analysis import AnalysisParams, analysis_path, read_analysis
from llenvs.core import BackendCapabilities, FinishReason, Generation, GenerationRequest
from llenvs.workbench.jobs import StepValuesJob
from tests.analysis.conftest import open_trace


class Ticker:
    """Writes `` tick`` per row per step until ``max_tokens`` (or ``length(request)``)."""

    name = "ticker"
    capabilities = BackendCapabilities()

    def __init__(self, before_step: Callable[[int], None] = lambda step: None) -> None:
        self.before_step = before_step
        self.steps = 0
        self.length: Callable[[GenerationRequest], int] = lambda request: request.max_tokens

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Generation]:
        texts = [""] * len(requests)
        reasons: list[FinishReason | None] = [None] * len(requests)
        step = 0
        while any(r is None for r in reasons):
            step += 1
            self.steps += 1
            self.before_step(step)
            for row, request in enumerate(requests):
                if reasons[row] is not None:
                    continue
                texts[row] += " tick"
                if request.stop_at is not None and request.stop_at(texts[row]) is not None:
                    reasons[row] = FinishReason.BOUNDARY
                elif step >= min(request.max_tokens, self.length(request)):
                    reasons[row] = FinishReason.LENGTH
        return [
            Generation(text, reason or FinishReason.LENGTH, (1,) * (len(text) // 5))
            for text, reason in zip(texts, reasons, strict=True)
        ]


def _job(tmp_path, backend) -> StepValuesJob:
    params = AnalysisParams(budget=8, max_tokens=64)
    return StepValuesJob(tmp_path / "t.jsonl", open_trace(), backend, params)


def test_stop_ends_the_run_within_one_backend_step(tmp_path):
    holder: list[StepValuesJob] = []

    def click_stop(step: int) -> None:
        if step == 3:
            holder[0].stop()

    ticker = Ticker(click_stop)
    started = threading.Event()
    original = ticker.before_step

    def before(step: int) -> None:
        started.wait(10)
        original(step)

    ticker.before_step = before
    holder.append(_job(tmp_path, ticker))
    started.set()
    assert holder[0].wait(60)
    job = holder[0]
    assert job.error is None and job.stopped and job.analysis is None
    assert ticker.steps == 3  # the step in which Stop came was the last: not the 64 of a round
    assert job.tokens() == 3 * 8  # the 8 rollouts of the round, one token a step
    assert job.rounds() == 0  # cut rollouts are not rollouts: nothing stored
    stored = read_analysis(analysis_path(tmp_path / "t.jsonl"), job.trace.trace_id, job.key)
    assert stored.rollouts == ()


def test_progress_is_planned_from_the_start_and_counts_tokens_inside_a_batch(tmp_path):
    gate, reached = threading.Event(), threading.Event()

    def hold(step: int) -> None:
        if step == 5:
            reached.set()
            assert gate.wait(60)

    job = _job(tmp_path, Ticker(hold))
    assert reached.wait(60)
    assert job.progress() == (0, 8)  # was "0 of at most 0" until the first rollout finished
    assert job.tokens() == 4 * 8  # four steps of the batch call, before any rollout is back
    job.stop()
    gate.set()
    assert job.wait(60) and job.stopped


def test_rollouts_are_counted_as_they_finish_before_the_round_ends(tmp_path):
    gate = threading.Event()
    ticker = Ticker()
    ticker.capabilities = BackendCapabilities(max_in_flight=8)  # one call per rollout, threads
    ticker.length = lambda request: 2 if (request.params.seed or 0) % 2 == 0 else 64

    def hold_the_long_ones(step: int) -> None:
        if step == 5:
            assert gate.wait(60)

    ticker.before_step = hold_the_long_ones
    job = _job(tmp_path, ticker)
    for _ in range(600):
        if job.progress()[0]:
            break
        time.sleep(0.05)
    done, planned = job.progress()
    assert 0 < done < planned == 8 and job.rounds() == 0  # counted before the round ended
    gate.set()
    assert job.wait(60) and job.error is None and job.rounds() >= 1
