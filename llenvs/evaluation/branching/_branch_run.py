"""``run_branches``: many branches, of many traces, through one continuously scheduled run.

``branch`` makes the samples of one request together; an experiment makes hundreds of branches
of many parents. Here each branch is one episode (its parent's environment, prefix, answer
opening and the intervention as ``then=``, exactly as ``branch`` makes it) and all of them go
through ``drive_episodes`` with up to ``in_flight`` at once: a branch starts the moment another
ends, so a server backend keeps many in flight. Each finished branch is yielded as it ends,
with its position in the list, so a caller can record it at once (and resume later). Each
branch is scored by its parent's recorded PRM, made again as ``intervene`` makes it
(``parent_prm``), so a branch made here carries the scores and the ``run.spec.prm`` that the
same branch made by ``intervene`` carries; a PRM that cannot be made here scores nothing, and
each branch of that parent says why (``metadata["prm_unscored"]``).

Example:
    >>> from llenvs.core._intervention import Feedback, Force
    >>> parent = leg_counting_trace("Count. So 8. <answer>8</answer>")
    >>> jobs = [BranchJob(BranchRequest(parent, 1, Force("So 100. ")), seed=1),
    ...         BranchJob(BranchRequest(parent, 1, Feedback("Sure?")), seed=2)]
    >>> script = ["Count. So 100. <answer>100</answer>", "<answer>8</answer>"]
    >>> backend = get_backend("scripted", outputs=script)
    >>> [(n, t.success) for n, _, t in run_branches(jobs, backend, in_flight=1)]
    [(0, True), (1, False)]

"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from llenvs.core import (
    Feedback,
    ModelBackend,
    Resample,
    RunControl,
    SamplingParams,
    SegmentedEnvironment,
    Stopped,
)
from llenvs.evaluation.branching._branch import step_decision
from llenvs.evaluation.branching._branch_prm import BranchPRM, parent_prm
from llenvs.evaluation.branching._branch_request import BranchRequest
from llenvs.evaluation.branching._trace_environment import trace_environment, trace_sampling_params
from llenvs.evaluation.episodes import (
    Episode,
    EpisodePhase,
    EpisodeStart,
    SegmentedTrajectoryRunner,
    TrajectoryResult,
    drive_episodes,
    result_trace,
    trace_prefix,
    trajectory_event,
)
from llenvs.inference import backend_spec
from llenvs.traces.records import Trace

__all__ = ["BranchJob", "run_branches"]


@dataclass(frozen=True)
class BranchJob:
    """One branch to make: a request of one sample, its sampling and its own seed.

    Example:
        >>> from llenvs.core._intervention import Resample
        >>> from llenvs.traces import TaskRecord, Trace
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> BranchJob(BranchRequest(t, 0, Resample(2)))
        Traceback (most recent call last):
        ...
        ValueError: a branch job makes one branch: give Resample(1, ...) and one job per sample

    """

    request: BranchRequest
    """The parent, the branch point and the intervention (one sample)."""
    sampling_params: SamplingParams | None = None
    """How to sample after a force, feedback or complete (None: the parent's own); a
    ``Resample`` samples as its own params say."""
    seed: int | None = None
    """The branch's sampling seed (None: the sampling's own)."""

    def __post_init__(self) -> None:
        if self.request.samples != 1:
            raise ValueError(
                "a branch job makes one branch: give Resample(1, ...) and one job per sample"
            )

    def params(self) -> SamplingParams | None:
        """The sampling of the branch before its seed is set (as ``branch`` chooses it)."""
        match self.request.intervention:
            case Resample(params=params):
                return params or trace_sampling_params(self.request.parent)
            case _:
                return self.sampling_params or trace_sampling_params(self.request.parent)


def run_branches(
    jobs: Sequence[BranchJob],
    backend: ModelBackend,
    *,
    in_flight: int = 8,
    control: RunControl | None = None,
) -> Iterator[tuple[int, TrajectoryResult, Trace]]:
    """Make every branch of ``jobs``, up to ``in_flight`` at once; yield each as it ends.

    Yields ``(position in jobs, runner result, branch trace)``. Each parent's environment is
    made once (``trace_environment``, with the parent's PRM: ``parent_prm``). ``control``'s
    observer gets the runner's events (``trajectory``: the job's position); its retry retries
    failing calls (none: a failure raises). Once it is stopped no branch starts, and running
    ones end between segments, yielded with ``metadata["stopped"]`` (a caller keeping only
    finished branches skips them).
    """
    control = RunControl() if control is None else control
    made: dict[str, tuple[SegmentedEnvironment, BranchPRM]] = {}
    runners: dict[tuple[str, SamplingParams | None], SegmentedTrajectoryRunner] = {}
    finish: dict[int, tuple[SegmentedTrajectoryRunner, BranchJob]] = {}

    def episodes() -> Iterator[Episode]:
        for slot, job in enumerate(jobs):
            if control.stopped:
                return
            trace = job.request.parent
            params = job.params()
            key = (trace.trace_id, params)
            if key not in runners:
                if trace.trace_id not in made:
                    prm = parent_prm(trace, backend)
                    made[trace.trace_id] = (trace_environment(trace, backend, prm.rewards), prm)
                runners[key] = SegmentedTrajectoryRunner.continuing(
                    trace, made[trace.trace_id][0], backend, params
                )
            runner = runners[key]
            finish[slot] = (runner, job)
            yield _episode(runner, job, slot, control)

    ended = 0
    for episode in drive_episodes(backend, episodes(), control.retry, in_flight):
        result = episode.result()
        if episode.phase is not EpisodePhase.STOPPED:
            control.emit(trajectory_event(episode.task_index, result, episode.slot))
        runner, job = finish.pop(episode.slot)
        ended += 0 if result.metadata.get("stopped") else 1
        prm = made[job.request.parent.trace_id][1]
        trace = _trace(result, runner, job, episode.params.seed, backend, prm)
        yield episode.slot, result, trace
    if control.stopped and ended < len(jobs):
        control.emit(Stopped(kept=ended))


def _episode(
    runner: SegmentedTrajectoryRunner,
    job: BranchJob,
    slot: int,
    control: RunControl,
) -> Episode:
    """The episode of one branch, as ``branch`` runs it (same prefix, same ``then``)."""
    request = job.request
    feedback = isinstance(request.intervention, Feedback)
    prefix = trace_prefix(request.parent, request.at, keep_feedback_at=not feedback)
    seed = runner.sampling_params.seed if job.seed is None else job.seed
    return Episode(
        runner.environment,
        runner._new_strategy(),
        replace(runner.sampling_params, seed=seed),
        request.parent.task.task_index,
        start=EpisodeStart(prefix, step_decision(request.intervention)),
        control=control,
        answer_opening=runner.answer_opening,
        slot=slot,
    )


def _trace(
    result: TrajectoryResult,
    runner: SegmentedTrajectoryRunner,
    job: BranchJob,
    seed: int | None,
    backend: ModelBackend,
    prm: BranchPRM,
) -> Trace:
    """The branch's trace, recorded as ``intervene`` records it (with the PRM that scored it)."""
    parent = job.request.parent
    spec = replace(parent.run.spec, model=backend_spec(backend), prm=prm.spec)
    made = result_trace(
        result,
        runner.environment,
        replace(spec, sampling=replace(runner.sampling_params, seed=seed)),
        model_name=backend.name,
        chat_template=backend.capabilities.chat_template,
        parent=job.request.record(),
    )
    unscored = prm.metadata()
    return replace(made, metadata={**made.metadata, **unscored}) if unscored else made
