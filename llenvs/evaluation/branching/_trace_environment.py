"""A trace's environment made again: its registry environment, or one from its task record.

A branch must ask its parent's question. ``trace_base_environment`` makes the trace's
environment through the registry and checks that the task's prompt is the trace's; when the
environment cannot be made (an imported trace) or asks another question (a trace made without
a fixed seed), it makes a ``TaskRecordEnvironment`` from the trace's own prompt and expected
answer instead, and says why.

Example:
    >>> t = Trace(task=TaskRecord("gsm8k_log", "reasoning_gym_log", {}, 2, "2 + 2?", None, "4"),
    ...           response="", segments=())
    >>> env, why = trace_base_environment(t)
    >>> env.spec.adapter, why  # doctest: +ELLIPSIS
    ('task_record', "it was imported ('reasoning_gym_log' data, no registry adapter): ...")

"""

from __future__ import annotations

from typing import Any

from llenvs.adapters import TaskRecordEnvironment
from llenvs.core import Environment, ModelBackend, SamplingParams, SegmentedEnvironment
from llenvs.core.errors import LlenvsError
from llenvs.core.registry import environment_registry
from llenvs.core.segmenters import Segmenter, default_segmenter
from llenvs.traces.records import Trace, TraceFormatError

__all__ = [
    "trace_base_environment",
    "trace_environment",
    "trace_sampling_params",
    "trace_segmenter",
]


def trace_base_environment(trace: Trace) -> tuple[Environment, str | None]:
    """The trace's base environment, and why it is made from the task record (None if not).

    Example:
        >>> env = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=3)
        >>> state, _ = env.reset(options={"task_index": 1})
        >>> t = Trace(task=TaskRecord("leg_counting", "reasoning_gym", {"size": 3}, 1,
        ...                           state.observation.prompt), response="", segments=())
        >>> trace_base_environment(t)[1] is None
        True

    """
    task = trace.task
    if task.adapter not in environment_registry.adapters:
        return _from_record(trace, f"it was imported ({task.adapter!r} data, no registry adapter)")
    try:
        base: Environment = environment_registry.get(
            name=task.environment, adapter=task.adapter, **dict(task.adapter_kwargs)
        )
        state, _ = base.reset(options={"task_index": task.task_index})
    except (LlenvsError, ValueError, TypeError, KeyError, IndexError, OSError) as error:
        why = f"its environment cannot be made again ({type(error).__name__}: {error})"
    else:
        if state.observation.prompt == task.prompt:
            return base, None
        why = (
            f"the rebuilt {task.environment!r} asks another question for task "
            f"{task.task_index} (made with other options or without a fixed seed)"
        )
    return _from_record(trace, why)


def _from_record(trace: Trace, why: str) -> tuple[Environment, str]:
    """The environment of the trace's own task record, and the note saying why it is used."""
    task = trace.task
    scored = (
        "scored with math-verify against its expected answer"
        if task.expected_answer is not None
        else "no expected answer, so no outcome reward"
    )
    note = f"{why}: branched on its own task record (its prompt; {scored})"
    record = TaskRecordEnvironment(
        task.environment,
        task.task_index,
        task.prompt,
        expected=task.expected_answer,
        system_prompt=task.system_prompt,
    )
    return record, note


def trace_environment(
    trace: Trace, backend: ModelBackend | None = None, reward_functions: tuple[Any, ...] = ()
) -> SegmentedEnvironment:
    """The environment and segmenter a trace was made with, made again.

    The base environment is ``trace_base_environment``'s: through the registry, else from the
    trace's own task record. ``reward_functions`` come first, before the base environment's (a
    PRM's reward, say).

    Example:
        >>> t = Trace(task=TaskRecord("leg_counting", "reasoning_gym", {"size": 3}, 0, "q"),
        ...           response="", segments=())
        >>> env = trace_environment(t)
        >>> env.spec.adapter, env.segmenter.spec == default_segmenter().spec
        ('task_record', True)

    """
    base, _ = trace_base_environment(trace)
    segmenter = trace_segmenter(trace, backend)
    if not reward_functions:
        return SegmentedEnvironment(base, segmenter)
    return SegmentedEnvironment(
        base, segmenter, reward_functions=(*reward_functions, *base.reward_functions)
    )


def trace_segmenter(trace: Trace, backend: ModelBackend | None = None) -> Segmenter:
    """The segmenter a trace was cut with, made again (the default one where it records none).

    ``backend`` is the model an LLM segmenter asks, when the trace's segmenter is one.

    Example:
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> trace_segmenter(t).spec == default_segmenter().spec
        True

    """
    spec = trace.run.spec.segmenter
    return default_segmenter() if spec is None else spec.build(backend=backend)


def trace_sampling_params(trace: Trace) -> SamplingParams | None:
    """The sampling parameters a trace records, or None when it sampled nothing.

    An imported trace whose source states its sampling (``run.spec.stated_sampling``) gives
    the stated settings, with ``SamplingParams``' defaults for those it does not state.

    An older record whose sampling parameters ``SamplingParams`` refuses (a key it does not
    have, from a newer llenvs, say, or a value out of range) keeps them in ``run.unknown``:
    then this raises ``TraceFormatError`` naming the trace and the problem, so the trace is
    never branched or re-run with settings other than those it records.

    Example:
        >>> from llenvs.core.run_spec import RunSpec
        >>> from llenvs.traces import RunRecord, TaskRecord
        >>> run = RunRecord(RunSpec(sampling=SamplingParams(max_tokens=9, stop=("x",))))
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), run=run, response="", segments=())
        >>> trace_sampling_params(t)
        SamplingParams(max_tokens=9, temperature=0.0, top_p=1.0, top_k=None, seed=None, stop=('x',), logprobs=False)
        >>> odd = RunRecord(unknown={"sampling_params": {"max_tokens": 9, "beam": 2}})
        >>> trace_sampling_params(Trace(task=TaskRecord("e", "a", {}, 0, "q"), run=odd,
        ...                             response="", segments=(), trace_id="t"))
        Traceback (most recent call last):
        ...
        llenvs.traces.TraceFormatError: trace t: run.sampling_params: unknown field(s): beam: choose from max_tokens, temperature, top_p, top_k, seed, stop, logprobs; a trace from a newer llenvs? It is not sampled again with other settings than it records

    """  # noqa: E501
    unknown = trace.run.unknown
    if "sampling_params" in unknown:
        try:
            SamplingParams.from_record(unknown["sampling_params"], "run.sampling_params")
            problem = "run.sampling_params: kept as unknown"
        except ValueError as error:
            problem = str(error)
        raise TraceFormatError(
            f"trace {trace.trace_id}: {problem}; a trace from a newer llenvs? It is not "
            "sampled again with other settings than it records"
        )
    spec = trace.run.spec
    if spec.sampling is None and spec.stated_sampling is not None:
        return spec.stated_sampling.sampling_params()
    return spec.sampling
