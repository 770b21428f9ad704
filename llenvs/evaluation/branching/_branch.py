"""``branch``: replay a trace up to segment k, intervene there, and generate the rest.

This is what the workbench and ``llenvs intervene`` do when a researcher forces a segment,
injects feedback, completes in one call or resamples from a point: a runner call with the
first k segments as the prefix (stepped as given, with the model's own token ids and the
parent's feedback turns, so a greedy resample reproduces the parent) and the intervention as
``then=`` (its ``StepDecision``: a ``Force`` is a ``ForceAction``, a ``Feedback`` its text,
``Complete()`` is ``COMPLETE``, a ``Resample`` continues). The branch is made on the parent's
own task: its environment made again, or, when that asks another question or cannot be made,
one made from its task record (``trace_environment``); a given environment whose task differs
is refused. Each new trace names its parent, the branch point and the intervention
(``BranchRequest.record``), so it can be replayed.

Example:
    >>> from llenvs.core._intervention import Force
    >>> parent = leg_counting_trace("Count. So 8. <answer>8</answer>")
    >>> backend = get_backend("scripted", outputs=["Count. So 100. <answer>100</answer>"])
    >>> [child] = branch(BranchRequest(parent, 1, Force("So 100. ")), backend)
    >>> [s.text for s in child.segments], child.success, child.parent.segment_index
    (['Count. ', 'So 100. ', '<answer>100</answer>'], True, 1)

"""

from __future__ import annotations

from dataclasses import replace

from llenvs.core import (
    Complete,
    Feedback,
    Force,
    Intervention,
    ModelBackend,
    Resample,
    RunControl,
    SamplingParams,
    SegmentedEnvironment,
    Substitute,
)
from llenvs.evaluation.branching._branch_request import BranchRequest
from llenvs.evaluation.branching._trace_environment import trace_environment, trace_sampling_params
from llenvs.evaluation.episodes import (
    ForceAction,
    SegmentedTrajectoryRunner,
    StepDecision,
    derived_seeds,
    result_trace,
    trace_prefix,
)
from llenvs.inference import backend_spec
from llenvs.traces.records import Trace

__all__ = ["branch", "rerun_branch", "step_decision"]


def branch(
    request: BranchRequest,
    backend: ModelBackend,
    *,
    environment: SegmentedEnvironment | None = None,
    sampling_params: SamplingParams | None = None,
    control: RunControl | None = None,
) -> list[Trace]:
    """The traces of ``request``: one, or a ``Resample``'s ``n``, generated together.

    Arguments:
        request: the parent, the branch point and the intervention.
        backend: the model that generates the rest.
        environment: the environment to step (by default the trace's own, made again).
        sampling_params: how to sample after a ``Force``, ``Feedback`` or ``Complete`` (by
            default the trace's own, else the runner's). A ``Resample`` samples as its
            ``params`` say, so it refuses this argument.
        control: its observer gets the runner's events: a ``StepTaken`` per new segment
            (its ``trajectory`` is the sample's number, its ``segment`` the trace's record of
            it), ``TrajectoryEnded`` per sample, and ``Stopped`` when the stop cut them; its
            stop is read before each generation (what was generated is kept, marked truncated:
            ``metadata["stopped"]``).

    The samples of a ``Resample`` each have their own seed, derived from the sampling seed
    (``derived_seeds``: the first is the seed itself), recorded in its trace, so any sample can
    be run again alone. The token budget (``max_tokens``) counts what a branch generates, not
    the kept prefix.

    Example:
        >>> parent = leg_counting_trace("Count. So 8. <answer>8</answer>")
        >>> backend = get_backend("scripted", outputs=["Count. A. <answer>1</answer>"])
        >>> again = Resample(2, SamplingParams(temperature=1.0, seed=5))
        >>> samples = branch(BranchRequest(parent, 1, again), backend)
        >>> [s.parent.segment_index for s in samples], [s.run.spec.sampling.seed for s in samples]
        ([1, 1], [5, 1000008])

    """
    match request.intervention:
        case Resample(n=n, params=params):
            if sampling_params is not None:
                raise ValueError(
                    "a Resample samples as its own params say (Resample(n, params)); "
                    "sampling_params is for a Force, Feedback or Complete"
                )
            params = params or trace_sampling_params(request.parent)
            if n > 1:
                params = params or SamplingParams()
                seeds = derived_seeds(params.seed, n)
                return _branches(request, backend, environment, params, seeds, control)
        case _:
            params = sampling_params or trace_sampling_params(request.parent)
    return _branches(request, backend, environment, params, None, control)


def rerun_branch(
    recorded: Trace,
    parent: Trace,
    backend: ModelBackend,
    *,
    environment: SegmentedEnvironment | None = None,
    control: RunControl | None = None,
) -> Trace:
    """``recorded``, a branch of ``parent``, made again from its record.

    The same point, the same intervention, its own sampling parameters and seed (a sample of
    a resample set is made again alone): greedy, or with the same seed on the same backend,
    the result is the recorded branch again, byte for byte. ``control`` is
    ``branch``'s.

    Example:
        >>> parent = leg_counting_trace("Count. So 8. <answer>8</answer>")
        >>> script = ["Count. So 100. <answer>100</answer>"]
        >>> [child] = branch(BranchRequest(parent, 1, Resample()),
        ...                  get_backend("scripted", outputs=script))
        >>> rerun_branch(child, parent, get_backend("scripted", outputs=script)).response == (
        ...     child.response)
        True

    """
    record = recorded.parent
    if record is None or record.parent_id != parent.trace_id:
        raise ValueError(f"trace {recorded.trace_id} is not a branch of {parent.trace_id}")
    own = trace_sampling_params(recorded)
    intervention: Intervention = record.intervention
    sampling: SamplingParams | None = own
    if isinstance(intervention, Resample):
        intervention, sampling = Resample(1, own), None
    if isinstance(intervention, Substitute):  # the text its search chose, forced again
        intervention = Force(_substituted_text(recorded))
    [again] = branch(
        BranchRequest(parent, record.segment_index, intervention),
        backend,
        environment=environment,
        sampling_params=sampling,
        control=control,
    )
    return again


def step_decision(intervention: Intervention) -> StepDecision:
    """The runner's ``then=`` for an intervention: what a step callback would return.

    Example:
        >>> step_decision(Force("x = 4. ")), step_decision(Feedback("Why?"))
        (ForceAction(text='x = 4. '), 'Why?')
        >>> step_decision(Complete()), step_decision(Resample()) is None
        (COMPLETE, True)

    """
    match intervention:
        case Force(text=text):
            return ForceAction(text)
        case Feedback(text=text):
            return text
        case Complete():
            return intervention
        case Resample():
            return None
        case Substitute():
            raise ValueError(
                "a Substitute is searched for before it branches: intervene(..., "
                "similarity=...) finds its text (find_substitute) and forces it"
            )


def _substituted_text(recorded: Trace) -> str:
    """The text a substitute branch forced: its ``metadata.substitute.text``."""
    found = recorded.metadata.get("substitute")
    text = found.get("text") if isinstance(found, dict) else None
    if not isinstance(text, str) or not text:
        raise ValueError(
            f"branch {recorded.trace_id} records a substitute but not the text it chose "
            "(metadata.substitute.text): it cannot be made again"
        )
    return text


def _branches(
    request: BranchRequest,
    backend: ModelBackend,
    environment: SegmentedEnvironment | None,
    params: SamplingParams | None,
    seeds: list[int | None] | None,
    control: RunControl | None = None,
) -> list[Trace]:
    """Branches of ``request``: one per seed (one with the params' own seed if None)."""
    trace = request.parent
    if environment is None:
        env = trace_environment(trace, backend)  # the trace's own question, by construction
    else:
        env = environment
        _check_same_task(trace, env)
    runner = SegmentedTrajectoryRunner.continuing(trace, env, backend, params)
    seeds = [runner.sampling_params.seed] if seeds is None else seeds
    feedback = isinstance(request.intervention, Feedback)
    prefix = trace_prefix(trace, request.at, keep_feedback_at=not feedback)
    results = runner.run_batch(
        [trace.task.task_index] * len(seeds),
        prefixes=[prefix] * len(seeds),
        thens=[step_decision(request.intervention)] * len(seeds),
        seeds=seeds,
        control=control,
    )
    template = backend.capabilities.chat_template
    record = request.record()
    # the parent's run, with what the branch changed: its model, its sampling, and no PRM
    # until one scores it (``intervene`` records the one it used)
    spec = replace(trace.run.spec, model=backend_spec(backend), prm=None)
    return [
        result_trace(
            result,
            env,
            replace(spec, sampling=replace(runner.sampling_params, seed=seed)),
            model_name=backend.name,
            chat_template=template,
            parent=record,
        )
        for result, seed in zip(results, seeds, strict=True)
    ]


def _check_same_task(trace: Trace, env: SegmentedEnvironment) -> None:
    """Refuse to branch a trace on a task whose prompt is not the trace's own."""
    task = trace.task
    if not 0 <= task.task_index < len(env):
        raise ValueError(
            f"the trace's task {task.task_index} is not in the rebuilt environment "
            f"{task.environment!r} ({len(env)} tasks: 0..{len(env) - 1})"
        )
    state, _ = env.reset(options={"task_index": task.task_index})
    if state.observation.prompt != task.prompt:
        raise ValueError(
            f"the rebuilt environment's task {task.task_index} is not the trace's: its prompt "
            f"starts {state.observation.prompt[:60]!r}, the trace's {task.prompt[:60]!r}. The "
            f"trace was made with other task options ({dict(task.adapter_kwargs)}; a missing "
            "seed means random tasks): branching it would answer another question"
        )
