"""``branch``: replay a trace up to segment k, intervene there, and generate the rest.

This is what the workbench and ``llenvs intervene`` do when a researcher forces a segment,
injects feedback, completes in one call or resamples from a point: a runner call with the
first k segments as the prefix (stepped as given, with the model's own token ids and the
parent's feedback turns, so a greedy resample reproduces the parent) and the intervention as
``then=``. The branch is made on the parent's own task: a rebuilt task whose prompt differs
is refused. The new
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
from llenvs.evaluation.prefix import FeedbackTurn, PrefixSegment
from llenvs.evaluation.result_trace import result_trace
from llenvs.evaluation.runner import SegmentedTrajectoryRunner
from llenvs.traces.branch_record import BranchRecord
from llenvs.traces.intervention_kind import InterventionKind
from llenvs.traces.segment_flag import SegmentFlag
from llenvs.traces.trace import Trace

__all__ = [
    "branch",
    "check_branch",
    "trace_environment",
    "trace_feedback",
    "trace_prefix",
    "trace_sampling_params",
]


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

    The token budget (``max_tokens``) counts what the branch generates, not the kept prefix.

    """
    record = check_branch(trace, at, kind, text)
    env = trace_environment(trace, backend) if environment is None else environment
    _check_same_task(trace, env)
    params = sampling_params or trace_sampling_params(trace)
    runner = SegmentedTrajectoryRunner(env, backend, params)
    result = runner.run_trajectory(
        trace.task.task_index,
        prefix=trace_prefix(trace, at, keep_feedback_at=kind is not InterventionKind.FEEDBACK),
        then=_intervention(kind, text),
    )
    template = getattr(backend, "chat_template", None)
    return result_trace(
        result, env, backend.name, runner.sampling_params, chat_template=template, parent=record
    )


def check_branch(trace: Trace, at: int, kind: InterventionKind, text: str | None) -> BranchRecord:
    """The record of a branch of ``trace`` at ``at``, or a ``ValueError`` saying why not.

    Checks what needs no model, so a caller can refuse bad input before loading one: the
    branch point is in range, the text fits the kind, and something is left to do (a finished
    trace has nothing to complete or resample after its last segment; feedback there is a new
    user turn the model answers).

    Example:
        >>> from llenvs.traces import TaskRecord
        >>> t = Trace(task=TaskRecord("leg_counting", "reasoning_gym", {"size": 3}, 0, "q"),
        ...           response="", segments=())
        >>> check_branch(t, 1, InterventionKind.RESAMPLE, None)
        Traceback (most recent call last):
        ...
        ValueError: cannot branch after segment 1: the trace has 0 segments (choose 0..0)

    """
    count = len(trace.segments)
    if not 0 <= at <= count:
        raise ValueError(
            f"cannot branch after segment {at}: the trace has {count} segments (choose 0..{count})"
        )
    record = BranchRecord(trace.trace_id, at, kind, text)  # checks text against kind
    ended = count > 0 and trace.segments[-1].terminal
    if at == count and ended and kind in (InterventionKind.COMPLETE, InterventionKind.RESAMPLE):
        raise ValueError(
            f"nothing to {kind.value} after segment {at}: the trace ended there (its last "
            f"segment is terminal); choose 0..{count - 1}, or give feedback after it"
        )
    return record


def trace_prefix(
    trace: Trace, at: int, *, keep_feedback_at: bool = True
) -> list[PrefixSegment | FeedbackTurn]:
    """The first ``at`` segments of ``trace`` as the runner's prefix, exactly as they happened.

    Each segment carries the token ids the model generated for it (so generation continues
    from them, not from re-tokenised text), and the trace's feedback turns come back between
    them. Feedback given right after segment ``at - 1`` is kept when ``keep_feedback_at``
    (a new feedback there replaces it).

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> segments = (SegmentRecord(0, 0, 3, "Hm."), SegmentRecord(1, 3, 6, " No"))
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="Hm. No",
        ...           segments=segments, metadata={"feedback": [{"after_segment": 1,
        ...                                                      "text": "Why?"}]})
        >>> trace_prefix(t, 2)
        [PrefixSegment(text='Hm.', token_ids=None), FeedbackTurn(text='Why?'), PrefixSegment(text=' No', token_ids=None)]

    """  # noqa: E501
    feedback = trace_feedback(trace)
    prefix: list[PrefixSegment | FeedbackTurn] = []
    for number in range(at + 1):
        if number < at or keep_feedback_at:
            prefix.extend(FeedbackTurn(text) for after, text in feedback if after == number)
        if number < at:
            segment = trace.segments[number]
            prefix.append(PrefixSegment(segment.text, segment.token_ids))
    return prefix


def trace_feedback(trace: Trace) -> list[tuple[int, str]]:
    """The feedback injected in ``trace``: (segments before it, text), in order.

    Read from the runner's ``metadata["feedback"]``; for a trace without it (an imported
    one), from the user turns after the first, placed after the segments flagged
    ``feedback_after``.

    Example:
        >>> from llenvs.traces import TaskRecord
        >>> trace_feedback(Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="",
        ...                      segments=(), metadata={"feedback": [
        ...                          {"after_segment": 0, "text": "Go on."}]}))
        [(0, 'Go on.')]

    """
    recorded = trace.metadata.get("feedback")
    if isinstance(recorded, list):
        return [(int(item["after_segment"]), str(item["text"])) for item in recorded]
    users = [m.content for m in trace.messages if m.role == "user"][1:]
    flagged = [s.index + 1 for s in trace.segments if SegmentFlag.FEEDBACK_AFTER in s.flags]
    return list(zip(flagged, users, strict=False))


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


def _intervention(kind: InterventionKind, text: str | None) -> Intervention:
    """The runner's ``then=`` for an intervention kind."""
    if kind is InterventionKind.FORCE:
        return ForceAction(str(text))
    if kind is InterventionKind.FEEDBACK:
        return str(text)
    if kind is InterventionKind.COMPLETE:
        return COMPLETE
    return None
