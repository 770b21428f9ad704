"""The rollouts engine: continuations from many points of one trace, in one batch.

``run_rollouts`` takes (boundary, number) pairs: for each, the trace's first ``boundary``
segments are replayed as they happened (``trace_prefix``: the model's own token ids, the
feedback turns) and the rest is generated in one call (``COMPLETE``), with the rollout's own
seed (``rollout_seed``). All of them go through one ``run_batch`` call, so the backend serves
them together (and a server's prefix cache shares the common prefixes). Each is scored by the
environment's own verifier; its answer is the one the environment read (``final_answer``).
With a ``stop`` token, the calls in progress end at the backend's next token once it is stopped
(``StoppableBackend``): the rollouts that finished before are returned, the cut ones are not.

Example:
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym",
    ...                                 size=100, seed=42)
    >>> env = SegmentedEnvironment(base, "sentence")
    >>> trace = replay_trace(env, 0, "Count. So 8. <answer>8</answer>", model="scripted")
    >>> backend = get_backend("scripted", outputs=["Count. So 100. <answer>100</answer>"])
    >>> [(r.boundary, r.success, r.answer) for r in run_rollouts(
    ...     trace, [(1, 0), (1, 1)], backend, AnalysisParams(), environment=env)]
    [(1, True, '100'), (1, True, '100')]
    >>> sampled_boundaries(trace), exact_outcome(trace, env)
    ([0, 1], (False, '8'))

"""

from __future__ import annotations

from collections.abc import Sequence

from llenvs.analysis.sampling._events import RolloutFinished
from llenvs.analysis.sampling._final_answer import final_answer, step_answer
from llenvs.analysis.sampling._params import AnalysisParams
from llenvs.analysis.sampling._rollout import Rollout, rollout_seed
from llenvs.analysis.sampling._stoppable_backend import RolloutsStopped, StoppableBackend
from llenvs.core import (
    ModelBackend,
    RetryPolicy,
    RewardType,
    RunControl,
    RunEvent,
    SegmentedEnvironment,
    Stopped,
    StopToken,
)
from llenvs.evaluation.episodes import (
    COMPLETE,
    SegmentedTrajectoryRunner,
    StepDecision,
    TrajectoryOver,
    TrajectoryResult,
    trace_prefix,
)
from llenvs.traces.records import Trace

__all__ = ["exact_outcome", "run_rollouts", "sampled_boundaries"]


def sampled_boundaries(trace: Trace) -> list[int]:
    """The boundaries whose value is estimated by sampling: 0..n, or 0..n-1 for an ended trace.

    After the last segment of a trace that ended (its last segment is terminal) there is
    nothing to generate: that value is the trace's own outcome (``exact_outcome``).

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A.",
        ...           segments=(SegmentRecord(0, 0, 2, "A."),))
        >>> sampled_boundaries(t)
        [0, 1]

    """
    count = len(trace.segments)
    ended = count > 0 and trace.segments[-1].terminal
    return list(range(count if ended else count + 1))


def exact_outcome(trace: Trace, environment: SegmentedEnvironment) -> tuple[bool, str | None]:
    """The verdict and answer of the whole response of ``trace``, judged by ``environment``.

    The response is stepped to its end (``replay``: the last step is terminal) and scored by
    the environment's verifier, the same verifier that scores the rollouts; nothing is
    generated. Success: at least one OUTCOME reward, and every one >= 1.

    Example:
        >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym",
        ...                                 size=100, seed=42)
        >>> env = SegmentedEnvironment(base, "sentence")
        >>> exact_outcome(replay_trace(env, 0, "<answer>100</answer>", model="m"), env)
        (True, '100')

    """
    state, _ = environment.reset(options={"task_index": trace.task.task_index})
    last = environment.replay(state, trace.response)[-1]
    outcomes = [s.reward for s in last.rewards.of_type(RewardType.OUTCOME)]
    return bool(outcomes) and all(r >= 1.0 for r in outcomes), step_answer(last)


def run_rollouts(
    trace: Trace,
    jobs: Sequence[tuple[int, int]],
    backend: ModelBackend,
    params: AnalysisParams,
    *,
    environment: SegmentedEnvironment,
    then: StepDecision = COMPLETE,
    control: RunControl | None = None,
) -> list[Rollout]:
    """One rollout per ``(boundary, number)`` of ``jobs``, all generated in one batch.

    Arguments:
        trace: the trace to continue.
        jobs: which rollouts: the boundary (segments kept) and the rollout's number there.
        backend: the model.
        params: the sampling parameters (``params.sampling_params()``).
        environment: the trace's environment (``trace_environment``), made once by the caller.
        then: what follows the prefix: ``COMPLETE`` (finish in one call), or a forced text.
        control: its observer gets a ``RolloutFinished`` as each rollout ends, a
            ``TokenGenerated`` after every generated token (progress inside a batch call), and
            ``Stopped`` when the stop cut the batch; its stop is read after every generated
            token (the calls in progress end there, and only the rollouts that finished before
            are returned, in finishing order); its retry (``RetryPolicy()`` when it has none)
            retries failing calls, and a rollout whose calls still fail is returned with
            ``error`` set (and not counted).

    A trace whose run opened missing answers (``run.spec.answer_opening``) has its rollouts open
    theirs the same way, so a rollout is judged as the trace was.

    """
    sampling = params.sampling_params()
    control = RunControl() if control is None else control
    if control.stop is not None or control.observer is not None:
        backend = StoppableBackend(backend, control.stop or StopToken(), control.observer)
    runner = SegmentedTrajectoryRunner.continuing(trace, environment, backend, sampling)
    prefixes = {boundary: trace_prefix(trace, boundary) for boundary, _ in jobs}
    seeds = [rollout_seed(params.seed, boundary, number) for boundary, number in jobs]
    kept = {b: len("".join(s.text for s in trace.segments[:b])) for b in prefixes}
    finished: list[Rollout] = []

    def observe(event: RunEvent) -> None:  # kept as each ends: a later stop loses none
        if isinstance(event, TrajectoryOver):
            boundary, number = jobs[event.trajectory]
            seed = seeds[event.trajectory]
            finished.append(_rollout(boundary, number, seed, event.result, kept[boundary]))
            control.emit(RolloutFinished(finished[-1]))

    try:
        results = runner.run_batch(
            [trace.task.task_index] * len(jobs),
            prefixes=[prefixes[boundary] for boundary, _ in jobs],
            thens=[then] * len(jobs),
            seeds=seeds,
            control=RunControl(observe, control.stop, control.retrying(RetryPolicy())),
        )
    except RolloutsStopped:
        control.emit(Stopped(kept=len(finished)))
        return finished
    rollouts = [
        _rollout(boundary, number, seed, result, kept[boundary])
        for (boundary, number), seed, result in zip(jobs, seeds, results, strict=True)
        if not result.metadata.get("stopped")
    ]
    if len(rollouts) < len(jobs):
        control.emit(Stopped(kept=len(rollouts)))
    return rollouts


def _rollout(boundary: int, number: int, seed: int, result: TrajectoryResult, kept: int) -> Rollout:
    """The record of one finished rollout (``kept``: characters of the replayed prefix)."""
    return Rollout(
        boundary=boundary,
        number=number,
        seed=seed,
        success=result.success,
        answer=final_answer(result),
        tokens=int(result.metadata.get("generated_tokens", 0)),
        text=result.text[kept:],
        error=result.error,
    )
