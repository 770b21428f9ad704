"""``analyze_trace``: rollouts from a trace's steps, in rounds, stored as they come.

Each round asks the schedule which boundaries need rollouts (``AdaptiveSchedule`` by default),
runs them in one batch (``run_rollouts``), appends them to the sidecar, and goes on until the
schedule has nothing left to ask (every interval narrow enough, or the budget spent), or its
``StopToken`` is stopped: the calls in progress then end at the backend's next token, and the
round's rollouts that finished before are stored as its last round. Rollouts already stored
under the same key are read back first and counted: an interrupted run resumes where it
stopped, and a rerun of a finished one generates nothing.

Example:
    >>> import tempfile, os
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym",
    ...                                 size=100, seed=42)
    >>> env = SegmentedEnvironment(base, "sentence")
    >>> trace = replay_trace(env, 0, "Count. So 8. <answer>8</answer>", model="scripted")
    >>> backend = get_backend("scripted", outputs=["Count. So 100. <answer>100</answer>"])
    >>> store = os.path.join(tempfile.mkdtemp(), "runs.analysis.jsonl")
    >>> params = AnalysisParams(budget=8, width=0.5)
    >>> a = analyze_trace(trace, backend, params, store=store, environment=env)
    >>> [(v.boundary, v.value, v.trials) for v in a.values]
    [(0, 1.0, 4), (1, 1.0, 4), (2, 0.0, 0)]
    >>> analyze_trace(trace, backend, params, store=store, environment=env).resumed
    8

"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from typing import Any

from llenvs.adapters import ANSWER_OPEN
from llenvs.analysis._step_analysis import StepAnalysis
from llenvs.analysis.sampling import (
    AnalysisParams,
    ForcedAnswer,
    Rollout,
    RolloutFinished,
    RolloutsProgress,
    RoundDone,
    affordable,
    exact_outcome,
    forced_answers,
    rollout_limit,
    rollout_prices,
    run_rollouts,
    sampled_boundaries,
    spent,
)
from llenvs.analysis.sidecar import (
    StoredAnalysis,
    append_forced_answers,
    append_rollouts,
    read_analysis,
)
from llenvs.analysis.statistics import (
    Schedule,
    Tally,
    boundary_values,
    default_schedule,
    exact_value,
    step_importances,
    tallies,
)
from llenvs.core import (
    ModelBackend,
    RunControl,
    RunEvent,
    SegmentedEnvironment,
    Stopped,
    TokenGenerated,
)
from llenvs.evaluation.branching import trace_environment
from llenvs.evaluation.episodes import recorded_answer_opening
from llenvs.traces.records import Trace

__all__ = ["analysis_key", "analyze_trace", "forced_answer_key"]


def analysis_key(model: str, params: AnalysisParams) -> dict[str, Any]:
    """The key rollouts are stored under: the model and the sampling fields.

    Example:
        >>> analysis_key("scripted", AnalysisParams(seed=2))["model"]
        'scripted'

    """
    return {"model": model, **params.key()}


def forced_answer_key(model: str, params: AnalysisParams, opening: str) -> dict[str, Any]:
    """The key forced answers are stored under: model, opening and token budget (greedy).

    Example:
        >>> forced_answer_key("m", AnalysisParams(), "<answer>")["forced_answer_tokens"]
        16

    """
    return {
        "model": model,
        "opening": opening,
        "forced_answer_tokens": params.forced_answer_tokens,
    }


def analyze_trace(
    trace: Trace,
    backend: ModelBackend,
    params: AnalysisParams | None = None,
    *,
    store: str | os.PathLike[str] | None = None,
    schedule: Schedule | None = None,
    environment: SegmentedEnvironment | None = None,
    boundaries: Sequence[int] | None = None,
    forced_answer: bool = False,
    opening: str | None = None,
    control: RunControl | None = None,
) -> StepAnalysis:
    """Step values, importances (and forced answers) of ``trace``, from rollouts in rounds.

    Arguments:
        trace: the trace to analyse.
        backend: the model that continues it.
        params: sampling, budget and target width (``AnalysisParams``).
        store: the sidecar to read stored rollouts from and append new ones to
            (``analysis_path(trace file)``); None keeps nothing.
        schedule: which boundaries each round goes to (default ``default_schedule()``,
            ``AdaptiveSchedule()``).
        environment: the trace's environment (default: ``trace_environment(trace)``).
        boundaries: the boundaries to sample (default: all, ``sampled_boundaries``).
        forced_answer: also read the forced-answer curve (stored too).
        opening: the answer opening forced for that curve (default: the one the trace's run
            forced where an answer was missing, ``run.spec.answer_opening``, with its stop
            sequences, else ``<answer>``).
        control: its observer gets ``RolloutsProgress`` at the start and as each rollout
            finishes, ``TokenGenerated`` after every generated token, ``RoundDone`` after each
            round is stored, and ``Stopped`` (with the rollouts this run stored) when the stop
            ended it; its stop is read after every generated token and between rounds (the
            calls in progress end at the next token, the rollouts that finished are stored, no
            forced answers are read, and the analysis of what is stored is returned); its
            retry is ``run_rollouts``'.

    """
    params = params or AnalysisParams()
    schedule = schedule or default_schedule()
    env = environment if environment is not None else trace_environment(trace, backend)
    key = analysis_key(backend.name, params)
    stored = read_analysis(store, trace.trace_id, key) if store is not None else StoredAnalysis()
    count = len(trace.segments)
    ended = count > 0 and trace.segments[-1].terminal
    sampled = sampled_boundaries(trace)
    chosen = sampled if boundaries is None else [b for b in boundaries if b in sampled]
    wanted = set(chosen)
    rollouts = [r for r in stored.rollouts if r.boundary in wanted]
    resumed, rounds = len(rollouts), stored.rounds
    final = (
        exact_outcome(trace, env) if ended and (boundaries is None or count in boundaries) else None
    )
    known = {} if final is None else {count: Tally(int(final[0]), 1, exact=True)}
    planned = max(0, params.budget - len(rollouts))
    done = 0
    control = RunControl() if control is None else control
    control.emit(RolloutsProgress(done, planned))

    def observe(event: RunEvent) -> None:  # the rollouts' events, as this run counts them
        nonlocal done
        if isinstance(event, RolloutFinished):
            done += 1
            control.emit(RolloutsProgress(done, planned))
        elif isinstance(event, TokenGenerated):
            control.emit(event)

    prices = limits = None
    if params.token_budget is not None:
        prices = rollout_prices(trace, params, chosen)
        limits = dict.fromkeys(chosen, rollout_limit(trace, params))
    while not control.stopped:
        left = params.budget - len(rollouts)
        counted = {**tallies(rollouts, chosen), **known}  # the schedule weighs the known end
        if prices is None or limits is None:
            asked = schedule.next_round(counted, left, params.width)
        else:  # admitted at their limit: the run never spends past the token budget
            asked = schedule.next_round(counted, left, params.width, prices=prices)
            tokens_left = (params.token_budget or 0) - spent(rollouts)
            asked = affordable([b for b in asked if b in wanted], limits, tokens_left)
        boundaries_next = [b for b in asked if b in wanted]
        if not boundaries_next:
            break
        jobs = _numbered(boundaries_next, rollouts)
        new = run_rollouts(
            trace,
            jobs,
            backend,
            params,
            environment=env,
            control=control.watched_by(observe),
        )
        if not new:
            break  # stopped before any finished: nothing to store
        if store is not None:
            append_rollouts(store, trace.trace_id, key, rounds, new)
        rollouts.extend(new)
        rounds += 1
        control.emit(RoundDone(rounds, tuple(new)))
    values = boundary_values(rollouts, chosen)
    if final is not None:
        values.append(exact_value(count, *final))
    stop_sequences: tuple[str, ...] = ()
    if opening is None:
        recorded = recorded_answer_opening(trace)
        opening, stop_sequences = (
            (ANSWER_OPEN, ()) if recorded is None else (recorded.text, recorded.stop)
        )
    forced = (
        _forced(trace, backend, env, params, store, opening, stop_sequences)
        if forced_answer and not control.stopped
        else None
    )
    if control.stopped:
        control.emit(Stopped(kept=len(rollouts) - resumed))
    return StepAnalysis(
        trace.trace_id,
        key,
        tuple(values),
        tuple(step_importances(values, seed=params.seed)),
        forced,
        tuple(rollouts),
        resumed,
        rounds,
    )


def _numbered(boundaries: Sequence[int], rollouts: Sequence[Rollout]) -> list[tuple[int, int]]:
    """``(boundary, number)`` per rollout wanted: the lowest numbers not yet used there.

    A stopped round stores only the rollouts that finished, so a boundary's numbers may have
    gaps; filling them keeps every rollout's seed its own (``rollout_seed``).

    Example:
        >>> from llenvs.analysis.sampling._rollout import Rollout
        >>> done = [Rollout(1, n, 0, True, None, 1) for n in (0, 2)]
        >>> _numbered([1, 1, 0], done)
        [(1, 1), (1, 3), (0, 0)]

    """
    used: dict[int, set[int]] = {}
    for rollout in rollouts:
        used.setdefault(rollout.boundary, set()).add(rollout.number)
    jobs = []
    for boundary in boundaries:
        taken = used.setdefault(boundary, set())
        number = next(n for n in itertools.count() if n not in taken)
        taken.add(number)
        jobs.append((boundary, number))
    return jobs


def _forced(
    trace: Trace,
    backend: ModelBackend,
    env: SegmentedEnvironment,
    params: AnalysisParams,
    store: str | os.PathLike[str] | None,
    opening: str,
    stop: tuple[str, ...],
) -> tuple[ForcedAnswer, ...]:
    """The forced-answer curve: stored, else generated (and stored)."""
    key = forced_answer_key(backend.name, params, opening)
    if store is not None:
        stored = read_analysis(store, trace.trace_id, key).forced_answers
        if stored is not None:
            return stored
    answers = forced_answers(trace, backend, env, params=params, opening=opening, stop=stop)
    if store is not None:
        append_forced_answers(store, trace.trace_id, key, answers)
    return tuple(answers)
