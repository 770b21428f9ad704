"""Driving episodes: one ``generate`` call per round for every episode still running.

``run_episodes`` asks each ``Episode`` for its next request, sends the round to the backend in
one call, and hands each episode its generation (or, under a retry policy, the error of a request
that kept failing). The runner's ``run_trajectory`` and ``run_batch`` are built on it.

Example:
    >>> from llenvs.core.registry import environment_registry
    >>> from llenvs.core import SamplingParams, SegmentedEnvironment
    >>> from llenvs.evaluation.boundary_strategy import BoundaryContinuationStrategy
    >>> from llenvs.inference import get_backend
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
    >>> env = SegmentedEnvironment(base, "sentence")
    >>> episode = Episode(env, BoundaryContinuationStrategy(env.segmenter), SamplingParams(), 0)
    >>> run_episodes(get_backend("scripted", outputs=["One. <answer>1</answer>"]), [episode])
    >>> episode.done
    True

"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from llenvs.core.backend import Generation, GenerationRequest, ModelBackend
from llenvs.core.errors import BackendError
from llenvs.evaluation.episode import Episode
from llenvs.evaluation.retry_policy import RetryPolicy

__all__ = ["run_episodes"]


def run_episodes(
    backend: ModelBackend, episodes: Sequence[Episode], retry: RetryPolicy | None = None
) -> None:
    """Drive ``episodes`` to their ends: one ``generate`` call per round for all running ones.

    Without ``retry`` a backend failure propagates. With it, a failing call is retried by the
    policy; a round that still fails is retried one request at a time, so only the episodes
    whose own request keeps failing end, errored, with the transitions they have.

    Example:
        >>> run_episodes(object(), [])  # nothing to run, no call made

    """
    while True:
        waiting = [(e, r) for e in episodes if (r := e.next_request()) is not None]
        if not waiting:
            return
        requests = [request for _, request in waiting]
        if retry is None:
            generations: list[Generation | BaseException] = list(_generate(backend, requests))
        else:
            generations = _generate_retrying(backend, requests, retry)
        for (episode, _), generation in zip(waiting, generations, strict=True):
            if isinstance(generation, BaseException):
                episode.fail(generation)
            else:
                episode.receive(generation)


def _generate_retrying(
    backend: ModelBackend, requests: list[GenerationRequest], retry: RetryPolicy
) -> list[Generation | BaseException]:
    """The round's generations under ``retry``; a request that keeps failing gets its error."""
    try:
        return list(retry.call(functools.partial(_generate, backend, requests)))
    except retry.retry_on as error:
        if len(requests) == 1:
            return [error]
    outcomes: list[Generation | BaseException] = []
    for request in requests:
        one = [request]
        try:
            outcomes.extend(retry.call(functools.partial(_generate, backend, one)))
        except retry.retry_on as error:
            outcomes.append(error)
    return outcomes


def _generate(backend: ModelBackend, requests: list[GenerationRequest]) -> list[Generation]:
    """``backend.generate(requests)``, checked to give one generation per request."""
    generations = backend.generate(requests)
    if len(generations) != len(requests):
        raise BackendError(
            f"{getattr(backend, 'name', backend)!r} returned {len(generations)} "
            f"generation(s) for {len(requests)} request(s)"
        )
    return generations
