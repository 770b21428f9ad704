"""The episode driver: per-request retries, and continuous scheduling (no lockstep)."""

from __future__ import annotations

import threading
from collections import Counter

from llenvs.core import BackendCapabilities, RunControl
from llenvs.core.errors import BackendError
from llenvs.evaluation import LogConfig, RetryPolicy, run_segmented_evaluation
from llenvs.evaluation.episodes import TrajectoryEnded
from tests.evaluation.conftest import SCRIPT, KeyedBackend

QUIET = LogConfig(targets=())
INSTANT = RetryPolicy(attempts=3, sleep=lambda seconds: None)


def _prompts(env, tasks):
    return [env.reset(options={"task_index": i})[0].observation.prompt for i in tasks]


def _scripts(env, tasks, long=()):
    """Task ``i``: the long SCRIPT when in ``long``, else a short answer in two segments."""
    return {
        prompt: SCRIPT if i in long else f"Task {i}. <answer>{i}</answer>"
        for prompt, i in zip(_prompts(env, tasks), tasks, strict=True)
    }


def _key(request):
    """Which request this is: its conversation and how far its open turn has got."""
    return request.prompt.messages[-1].content, request.prompt.continuation


class FailsFor:
    """Every call holding ``prompt``'s request fails, the first ``failures`` times.

    It counts how often each request was sent. ``max_in_flight`` (when given) marks it a
    backend that serves calls concurrently, like the openai backend.
    """

    def __init__(self, inner, prompt, failures, max_in_flight=None):
        self.inner, self.prompt, self.left = inner, prompt, failures
        self.name = inner.name
        self.sent: Counter[tuple[str, str]] = Counter()
        self.lock = threading.Lock()
        self.capabilities = BackendCapabilities(max_in_flight=max_in_flight)

    def generate(self, requests):
        with self.lock:
            self.sent.update(_key(r) for r in requests)
            if self.left and any(r.prompt.messages[-1].content == self.prompt for r in requests):
                self.left -= 1
                raise BackendError("429 Too Many Requests")
            return self.inner.generate(requests)


def _comparable(result):
    return [(t.response, t.final_rewards, t.success, t.error) for t in result.traces]


def test_a_concurrent_backend_resends_only_the_failing_request(env):
    tasks = list(range(6))
    clean = run_segmented_evaluation(
        env, KeyedBackend(_scripts(env, tasks, long={0})), num_tasks=6, log=QUIET
    )
    task_3 = _prompts(env, [3])[0]
    flaky = FailsFor(KeyedBackend(_scripts(env, tasks, long={0})), task_3, 2, max_in_flight=8)
    result = run_segmented_evaluation(
        env, flaky, num_tasks=6, batch_size=8, control=RunControl(retry=INSTANT), log=QUIET
    )
    assert _comparable(result) == _comparable(clean) and result.errors == {}
    resent = {key: count for key, count in flaky.sent.items() if count > 1}
    assert resent == {(task_3, ""): 3}  # only task 3's first request: 2 failures, 1 success


def test_a_batching_backend_keeps_the_generations_that_came_back(env):
    tasks = list(range(4))
    clean = run_segmented_evaluation(
        env, KeyedBackend(_scripts(env, tasks)), num_tasks=4, log=QUIET
    )
    task_3 = _prompts(env, [3])[0]
    flaky = FailsFor(KeyedBackend(_scripts(env, tasks)), task_3, 2)
    result = run_segmented_evaluation(
        env, flaky, num_tasks=4, batch_size=4, control=RunControl(retry=INSTANT), log=QUIET
    )
    assert _comparable(result) == _comparable(clean) and result.errors == {}
    # The batched call that failed gave nobody a generation: each other request was sent
    # once more, alone, and never again; only task 3's request was retried.
    assert flaky.sent[(task_3, "")] == 3
    others = [count for (prompt, _), count in flaky.sent.items() if prompt != task_3]
    assert others and max(others) <= 2


def test_a_finished_trajectorys_slot_goes_to_the_next_task_at_once(env):
    tasks = list(range(5))
    backend = KeyedBackend(_scripts(env, tasks, long={0}))
    ended = []

    def ends(event):
        if isinstance(event, TrajectoryEnded):
            ended.append(event.task_index)

    result = run_segmented_evaluation(
        env, backend, num_tasks=5, batch_size=2, log=QUIET, control=RunControl(ends)
    )
    assert result.errors == {}
    long_calls = result.results[0].metadata["calls"]
    assert long_calls > 4  # task 0 needs more rounds than the four short tasks together
    assert ended == [1, 2, 3, 4, 0]  # the short ones did not wait for the long one
    # each short task takes one call, beside the long one; lockstep batches of 2 would take
    # long_calls rounds for tasks 0 and 1, then one for 2 and 3, one for 4
    assert backend.calls == [2] * 4 + [1] * (long_calls - 4)


def test_a_concurrent_backend_never_waits_for_a_slower_request(env):
    tasks = list(range(4))
    inner = KeyedBackend(_scripts(env, tasks, long={1}))
    slow, last = _prompts(env, [0, 3])
    others_done = threading.Event()

    class Concurrent:
        """Task 0's first request is answered only once task 3 has ended (or after 10 s)."""

        name = "keyed"
        capabilities = BackendCapabilities(max_in_flight=4)

        def __init__(self):
            self.lock = threading.Lock()
            self.waited = None

        def generate(self, requests):
            (request,) = requests  # a concurrent backend gets one request per call
            prompt = request.prompt.messages[-1].content
            if prompt == slow and self.waited is None:
                self.waited = others_done.wait(timeout=10)
            with self.lock:
                out = inner.generate(requests)
            if prompt == last and out[0].text.endswith("</answer>"):
                others_done.set()
            return out

    backend = Concurrent()
    result = run_segmented_evaluation(env, backend, num_tasks=4, batch_size=2, log=QUIET)
    assert backend.waited is True  # tasks 1, 2, 3 ran to their ends while task 0 waited
    assert result.errors == {} and len(result.traces) == 4
