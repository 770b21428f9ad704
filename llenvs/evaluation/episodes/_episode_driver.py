"""Driving episodes: each request goes out as soon as its episode has one; no lockstep.

``drive_episodes`` keeps up to ``in_flight`` episodes running, starts the next one from its
source the moment one ends (continuous scheduling), and yields each episode as it ends. How the
waiting requests become ``generate`` calls depends on the backend:

- a backend that serves calls concurrently declares ``capabilities.max_in_flight`` (the
  openai backend): each request is a call of its own, on its own thread, so every trajectory
  goes on as soon as its own generation is back and never waits for a slower one;
- any other backend (transformers, scripted) gets one call with every request waiting at that
  moment, so it can serve them as one padded batch; a trajectory that ends frees its slot for
  the next task in the next call.

Failures are per request. A single request's call is retried by the ``RetryPolicy``; a batched
call that fails gave no generation to any of its requests, so each is then sent alone under the
policy, and only those whose own calls keep failing end, errored, with the transitions they
have. Generations already received are never asked for again. Episodes are only ever touched on
the caller's thread (callbacks and observers run there); worker threads only call the backend.
``run_episodes`` drives a fixed list to its end; the runner's ``run_trajectory``, ``run_batch``
and ``run_tasks`` are built on ``drive_episodes``.

Example:
    >>> from llenvs.core import SamplingParams, SegmentedEnvironment
    >>> from llenvs.evaluation.episodes._boundary_strategy import BoundaryContinuationStrategy
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
    >>> env = SegmentedEnvironment(base, "sentence")
    >>> episode = Episode(env, BoundaryContinuationStrategy(env.segmenter), SamplingParams(), 0)
    >>> run_episodes(get_backend("scripted", outputs=["One. <answer>1</answer>"]), [episode])
    >>> episode.done
    True

"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from llenvs.core import Generation, GenerationRequest, ModelBackend, RetryPolicy
from llenvs.core.errors import BackendError
from llenvs.evaluation.episodes._episode import Episode

__all__ = ["drive_episodes", "run_episodes"]

Outcome = Generation | BaseException
"""What one request got: its generation, or the error of the calls that kept failing."""


def run_episodes(
    backend: ModelBackend, episodes: Sequence[Episode], retry: RetryPolicy | None = None
) -> None:
    """Drive ``episodes``, all at once, to their ends (see ``drive_episodes``).

    Example:
        >>> run_episodes(get_backend("scripted"), [])  # nothing to run, no call made

    """
    for _ in drive_episodes(backend, episodes, retry):
        pass


def drive_episodes(
    backend: ModelBackend,
    episodes: Iterable[Episode],
    retry: RetryPolicy | None = None,
    in_flight: int | None = None,
) -> Iterator[Episode]:
    """Run the episodes of ``episodes``, up to ``in_flight`` at once; yield each as it ends.

    A new episode is taken from ``episodes`` only when a slot is free, so a lazy source (a
    generator) can decide late whether to start another one (to stop a run, say). Without
    ``retry`` a backend failure propagates; with it, a request whose calls keep failing ends
    its own episode only. ``in_flight`` None: every episode at once.

    Example:
        >>> list(drive_episodes(get_backend("scripted"), [], in_flight=4))
        []
        >>> list(drive_episodes(get_backend("scripted"), [], in_flight=0))
        Traceback (most recent call last):
        ...
        ValueError: in_flight must be >= 1 or None, got 0

    """
    if in_flight is not None and in_flight < 1:
        raise ValueError(f"in_flight must be >= 1 or None, got {in_flight}")
    return _drive(backend, iter(episodes), retry, in_flight)


def _drive(
    backend: ModelBackend,
    source: Iterator[Episode],
    retry: RetryPolicy | None,
    in_flight: int | None,
) -> Iterator[Episode]:
    """The loop of ``drive_episodes``."""
    workers = backend.capabilities.max_in_flight
    pool = None if workers is None else ThreadPoolExecutor(workers, "llenvs-driver")
    concurrent = pool is not None
    running: list[Episode] = []
    sent: dict[Future[list[Outcome]], list[Episode]] = {}
    more = True
    try:
        while True:
            ready: list[tuple[Episode, GenerationRequest]] = []
            freed = True
            while freed:  # ask every idle episode; an ended one's slot is filled at once
                freed = False
                while more and (in_flight is None or len(running) < in_flight):
                    new = next(source, None)
                    more = new is not None
                    if new is not None:
                        running.append(new)
                busy = {id(e) for group in sent.values() for e in group}
                busy.update(id(e) for e, _ in ready)
                for episode in [e for e in running if id(e) not in busy]:
                    request = episode.next_request()
                    if request is None:
                        running.remove(episode)
                        freed = True
                        yield episode
                    else:
                        ready.append((episode, request))
            groups = [[one] for one in ready] if concurrent else [ready] if ready else []
            for group in groups:
                call = functools.partial(_call, backend, [r for _, r in group], retry)
                sent[_done(call) if pool is None else pool.submit(call)] = [e for e, _ in group]
            if not sent:
                return
            done, _ = wait(sent, return_when=FIRST_COMPLETED)
            for future in done:
                for waiting, outcome in zip(sent.pop(future), future.result(), strict=True):
                    if isinstance(outcome, BaseException):
                        waiting.fail(outcome)
                    else:
                        waiting.receive(outcome)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _done(call: Callable[[], list[Outcome]]) -> Future[list[Outcome]]:
    """``call()`` run here and now, as a finished future."""
    future: Future[list[Outcome]] = Future()
    try:
        future.set_result(call())
    except Exception as error:
        future.set_exception(error)
    return future


def _call(
    backend: ModelBackend, requests: list[GenerationRequest], retry: RetryPolicy | None
) -> list[Outcome]:
    """One outcome per request: one call for all, then, if that fails, each one alone."""
    if retry is None:
        return list(_generate(backend, requests))
    if len(requests) > 1:
        try:
            return list(_generate(backend, requests))
        except retry.retry_on:
            pass  # no request got a generation: find those that fail, keep the others
    outcomes: list[Outcome] = []
    for request in requests:
        try:
            outcomes.extend(retry.call(functools.partial(_generate, backend, [request])))
        except retry.retry_on as error:
            outcomes.append(error)
    return outcomes


def _generate(backend: ModelBackend, requests: list[GenerationRequest]) -> list[Generation]:
    """``backend.generate(requests)``, checked to give one generation per request."""
    generations = backend.generate(requests)
    if len(generations) != len(requests):
        raise BackendError(
            f"{backend.name!r} returned {len(generations)} "
            f"generation(s) for {len(requests)} request(s)"
        )
    return generations
