"""``branch``: replay a trace up to segment k, intervene there, and generate the rest.

This is what the workbench and ``llenvs intervene`` do when a researcher forces a segment,
injects feedback, completes in one call or resamples from a point: a runner call with the
first k segments as the prefix (stepped as given) and the intervention as ``then=``. The new
trace names its parent, the branch point and the intervention, so it can be replayed.

Example:
    >>> from llenvs.core.registry import environment_registry
    >>> from llenvs.core import SegmentedEnvironment
    >>> from llenvs.evaluation.replay_trace import replay_trace
    >>> from llenvs.inference import get_backend
    >>> from llenvs.traces import InterventionKind
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym",
    ...                                 size=100, seed=42)
    >>> parent = replay_trace(SegmentedEnvironment(base, "sentence"), 0,
    ...                       "Count. So 8. <answer>8</answer>", model="scripted")
    >>> backend = get_backend("scripted", outputs=["Count. So 100. <answer>100</answer>"])
    >>> child = branch(parent, 1, InterventionKind.FORCE, "So 100. ", backend)
    >>> [s.text for s in child.segments], child.success, child.parent.segment_index
    (['Count. ', 'So 100. ', '<answer>100</answer>'], True, 1)

"""

from __future__ import annotations

from typing import Any

from llenvs.core.backend import ModelBackend, SamplingParams
from llenvs.core.registry import environment_registry
from llenvs.core.segmented_environment import SegmentedEnvironment
from llenvs.core.segmenters import default_segmenter, segmenter_from_spec
from llenvs.evaluation.intervention import COMPLETE, ForceAction, Intervention
from llenvs.evaluation.result_trace import result_trace
from llenvs.evaluation.runner import SegmentedTrajectoryRunner
from llenvs.traces.branch_record import BranchRecord
from llenvs.traces.intervention_kind import InterventionKind
from llenvs.traces.trace import Trace

__all__ = ["branch", "trace_environment", "trace_sampling_params"]


def trace_environment(
    trace: Trace, backend: ModelBackend | None = None, reward_functions: tuple[Any, ...] = ()
) -> SegmentedEnvironment:
    """The environment and segmenter a trace was made with, made again through the registry.

    ``reward_functions`` come first, before the base environment's (a PRM's reward, say).

    Example:
        >>> from llenvs.traces import TaskRecord
        >>> t = Trace(task=TaskRecord("leg_counting", "reasoning_gym", {"size": 3}, 0, "q"),
        ...           response="", segments=())
        >>> env = trace_environment(t)
        >>> len(env), env.segmenter.spec == default_segmenter().spec
        (3, True)

    """
    task = trace.task
    base = environment_registry.get(
        name=task.environment, adapter=task.adapter, **dict(task.adapter_kwargs)
    )
    spec = trace.run.segmenter
    segmenter = default_segmenter() if spec is None else segmenter_from_spec(spec, backend=backend)
    if not reward_functions:
        return SegmentedEnvironment(base, segmenter)
    return SegmentedEnvironment(
        base, segmenter, reward_functions=(*reward_functions, *base.reward_functions)
    )


def trace_sampling_params(trace: Trace) -> SamplingParams | None:
    """The sampling parameters a trace records, or None when it records none.

    Example:
        >>> from llenvs.traces import RunRecord, TaskRecord
        >>> run = RunRecord.from_sampling_params(SamplingParams(max_tokens=9, stop=("x",)),
        ...                                      model="m", segmenter="line")
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), run=run, response="", segments=())
        >>> trace_sampling_params(t)
        SamplingParams(max_tokens=9, temperature=0.0, top_p=1.0, top_k=None, seed=None, stop=('x',), logprobs=False)

    """  # noqa: E501
    values = dict(trace.run.sampling_params)
    if not values:
        return None
    values["stop"] = tuple(values.get("stop", ()))
    known = SamplingParams.__dataclass_fields__
    return SamplingParams(**{k: v for k, v in values.items() if k in known})


def branch(
    trace: Trace,
    at: int,
    kind: InterventionKind,
    text: str | None,
    backend: ModelBackend,
    *,
    environment: SegmentedEnvironment | None = None,
    sampling_params: SamplingParams | None = None,
) -> Trace:
    """The trace of an intervention on ``trace`` after its first ``at`` segments.

    Arguments:
        trace: the parent trace.
        at: how many of its segments to keep (0 branches before the first).
        kind: force the next segment to ``text``, inject ``text`` as feedback, complete the
            rest in one call, or resample from there.
        text: the forced segment or the feedback (None for complete and resample).
        backend: the model that generates the rest.
        environment: the environment to step (by default the trace's own, made again).
        sampling_params: how to sample (by default the trace's own, else the runner's).

    Example:
        >>> from llenvs.traces import TaskRecord
        >>> t = Trace(task=TaskRecord("leg_counting", "reasoning_gym", {"size": 3}, 0, "q"),
        ...           response="", segments=())
        >>> branch(t, 1, InterventionKind.RESAMPLE, None, object())
        Traceback (most recent call last):
        ...
        ValueError: cannot branch after segment 1: the trace has 0 segments (choose 0..0)

    """
    if not 0 <= at <= len(trace.segments):
        raise ValueError(
            f"cannot branch after segment {at}: the trace has {len(trace.segments)} segments "
            f"(choose 0..{len(trace.segments)})"
        )
    record = BranchRecord(trace.trace_id, at, kind, text)  # checks text against kind
    env = trace_environment(trace, backend) if environment is None else environment
    params = sampling_params or trace_sampling_params(trace)
    runner = SegmentedTrajectoryRunner(env, backend, params)
    result = runner.run_trajectory(
        trace.task.task_index,
        prefix=[segment.text for segment in trace.segments[:at]],
        then=_intervention(kind, text),
    )
    template = getattr(backend, "chat_template", None)
    return result_trace(
        result, env, backend.name, runner.sampling_params, chat_template=template, parent=record
    )


def _intervention(kind: InterventionKind, text: str | None) -> Intervention:
    """The runner's ``then=`` for an intervention kind."""
    if kind is InterventionKind.FORCE:
        return ForceAction(str(text))
    if kind is InterventionKind.FEEDBACK:
        return str(text)
    if kind is InterventionKind.COMPLETE:
        return COMPLETE
    return None
