"""Calls from two threads on one transformers backend take turns between decode steps.

A long batch decode no longer holds the backend for its whole call: a short call from another
thread (another job of the workbench) runs its steps in between and ends first; both get
exactly what they get alone, even on the same prompt (each call claims its own sessions).
"""

from __future__ import annotations

import threading
import time

import pytest

from llenvs.core import GenerationRequest, Message, Prompt, SamplingParams
from llenvs.inference._backends.transformers_backend import TransformersBackend
from llenvs.inference._backends.turn_lock import TurnLock
from tests.floats import assert_same_generations

QUESTION = Prompt((Message("user", "A farmer has 3 cows and 4 hens. How many legs in all?"),))


def _fresh(embedded_backend) -> TransformersBackend:
    """A backend on the same weights with an empty session store."""
    model, tokenizer = embedded_backend.model, embedded_backend.tokenizer
    return TransformersBackend(model, tokenizer, name="transformers/test")


def _until(condition, what: str) -> None:
    """Wait for ``condition`` (a thread reaching a point), failing after a minute."""
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.001)


def test_a_short_call_ends_between_the_steps_of_a_long_batch(embedded_backend):
    long = [GenerationRequest(QUESTION, SamplingParams(logprobs=True), 40)] * 4
    short = [GenerationRequest(QUESTION, SamplingParams(logprobs=True), 4)]
    alone_long = _fresh(embedded_backend).generate(long)
    alone_short = _fresh(embedded_backend).generate(short)
    assert all(len(g.token_ids) > 10 for g in alone_long)  # the long call has steps to share

    backend = _fresh(embedded_backend)
    events: list[str] = []
    results: dict[str, object] = {}
    checks = 0

    def run_short() -> None:
        results["short"] = backend.generate(short)
        events.append(f"short done after {checks} token checks of the long call")

    def watch_long(text: str) -> None:
        """Each row's token check of the long call: count its steps; start the short call."""
        nonlocal checks
        if "short" not in results and not events and checks == 0:
            threading.Thread(target=run_short, daemon=True).start()
            _until(lambda: backend._steps.waiting() > 0, "the short call to queue")
            events.append("short queued")
        checks += 1
        return None

    watched = [
        GenerationRequest(QUESTION, r.params, r.max_tokens, stop_at=watch_long) for r in long
    ]
    results["long"] = backend.generate(watched)
    events.append("long done")
    _until(lambda: "short" in results, "the short call")

    assert events[0] == "short queued"
    assert events[1].startswith("short done"), events  # before the long call ended
    assert events[2] == "long done"
    assert_same_generations(results["long"], alone_long)
    assert [g.token_ids for g in results["short"]] == [g.token_ids for g in alone_short]
    assert len(backend.sessions) <= backend.session_limit


def test_the_lock_goes_to_the_waiting_thread_before_the_one_asking_again():
    lock, order = TurnLock(), []

    def other() -> None:
        with lock.turn():
            order.append("other")

    with lock.turn():
        thread = threading.Thread(target=other)
        thread.start()
        _until(lambda: lock.waiting() == 1, "the other thread to wait")
        order.append("first")
    with lock.turn():  # asks again at once: the waiting thread goes first
        order.append("again")
    thread.join(10)
    assert order == ["first", "other", "again"]


def test_a_call_with_cheap_steps_takes_several_per_step_of_a_costly_one():
    """Turns follow time held (a clock the steps advance: 10 per long step, 1 per short)."""
    now, order = [0.0], []
    lock = TurnLock(clock=lambda: now[0])

    def step(name: str, cost: float) -> None:
        with lock.turn():
            order.append(name)
            now[0] += cost

    def short_call() -> None:
        with lock.call():
            for _ in range(5):
                step("short", 1)

    with lock.call():
        with lock.turn():
            order.append("long")
            thread = threading.Thread(target=short_call)
            thread.start()
            _until(lambda: lock.waiting() == 1, "the short call to wait")
            now[0] += 10
        for _ in range(2):
            step("long", 10)
    thread.join(10)
    assert order == ["long", *["short"] * 5, "long", "long"]  # strict turns: long, short, ...


def test_a_call_weighed_by_its_rows_yields_to_a_one_row_call():
    """A 64-row call (weight 64) waits while a one-row call takes its steps, then goes on."""
    now, order = [0.0], []
    lock = TurnLock(clock=lambda: now[0])

    def short_call() -> None:
        with lock.call(weight=1):
            for _ in range(5):
                with lock.turn():
                    order.append("short")
                    now[0] += 1

    with lock.call(weight=64):
        with lock.turn():
            order.append("long")
            thread = threading.Thread(target=short_call)
            thread.start()
            _until(lambda: lock.waiting() == 1, "the short call to wait")
            now[0] += 10
        for _ in range(2):
            with lock.turn():
                order.append("long")
                now[0] += 10
    thread.join(10)
    # equal weights gave long, short, long, short x4...: weighed, the short call runs through
    assert order == ["long", *["short"] * 5, "long", "long"]
    with pytest.raises(ValueError, match="a call's weight must be positive, got 0"), lock.call(0):
        pass
