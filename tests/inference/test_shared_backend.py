"""One transformers backend shared by threads, as the workbench shares one model between
browser sessions: separate, correct results; each thread's ``generate_until`` its own; the
KV-session store bounded."""

from __future__ import annotations

import threading

from llenvs.core import (
    GenerationRequest,
    Message,
    Prompt,
    SamplingParams,
    SegmentedEnvironment,
    SentenceSegmenter,
)
from llenvs.core.registry import environment_registry
from llenvs.evaluation import SegmentedTrajectoryRunner


def _in_threads(*jobs):
    results: list[object] = [None] * len(jobs)
    errors: list[BaseException] = []

    def run(number, job):
        try:
            results[number] = job()
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(n, job)) for n, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert not errors, errors
    return results


def test_two_threads_generating_at_once_get_their_own_results(embedded_backend):
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=10, seed=42)
    runner = SegmentedTrajectoryRunner(
        SegmentedEnvironment(base, SentenceSegmenter()),
        embedded_backend,
        SamplingParams(max_tokens=24),
    )
    alone = [runner.run_trajectory(task).text for task in (0, 2)]
    together = _in_threads(
        lambda: runner.run_trajectory(0).text, lambda: runner.run_trajectory(2).text
    )
    assert together == alone


def test_each_thread_continues_its_own_generate_until_conversation(embedded_backend):
    boundary = SentenceSegmenter().find_boundary
    questions = ["Name three colours.", "Count from one to five in words."]

    def two_segments(question):
        first = embedded_backend.generate_until(question, stop_at=boundary, max_tokens=16)
        second = embedded_backend.generate_until(question + first, stop_at=boundary, max_tokens=16)
        return first + second

    alone = [two_segments(q) for q in questions]
    assert _in_threads(*(lambda q=q: two_segments(q) for q in questions)) == alone


def test_the_session_store_is_bounded_and_shrinks_after_a_batch(embedded_backend):
    prompt = Prompt((Message("user", "Say hi."),))
    request = GenerationRequest(prompt, SamplingParams(), 2)
    embedded_backend.generate([request] * 40)
    assert len(embedded_backend.sessions) <= embedded_backend.session_limit
    embedded_backend.generate([request])
    assert len(embedded_backend.sessions) <= embedded_backend.max_sessions
