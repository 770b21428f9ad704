"""``branch``: replay a trace up to segment k, intervene there, and generate the rest.

This is what the workbench and ``llenvs intervene`` do when a researcher forces a segment,
injects feedback, completes in one call or resamples from a point: a runner call with the
first k segments as the prefix (stepped as given, with the model's own token ids and the
parent's feedback turns, so a greedy resample reproduces the parent) and the intervention as
``then=``. The branch is made on the parent's own task: its environment made again, or, when
that asks another question or cannot be made, one made from its task record
(``trace_environment``); a given environment whose task differs is refused. The new trace
names its parent, the branch point and the intervention, so it can be replayed.

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

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from llenvs.core.backend import ModelBackend, SamplingParams
from llenvs.core.segmented_environment import SegmentedEnvironment
from llenvs.evaluation.answer_opening import recorded_answer_opening
from llenvs.evaluation.episode import Episode, StopCheck
from llenvs.evaluation.intervention import COMPLETE, ForceAction, Intervention
from llenvs.evaluation.result_trace import result_trace
from llenvs.evaluation.runner import SegmentedTrajectoryRunner, derived_seeds
from llenvs.evaluation.trace_environment import trace_environment, trace_sampling_params
from llenvs.evaluation.trace_prefix import trace_prefix
from llenvs.inference.registry import backend_options
from llenvs.traces.branch_record import BranchRecord
from llenvs.traces.from_steps import segment_from_transition
from llenvs.traces.intervention_kind import InterventionKind
from llenvs.traces.segment_record import SegmentRecord
from llenvs.traces.trace import Trace

__all__ = [
    "SegmentObserver",
    "branch",
    "branch_samples",
    "check_branch",
    "rerun_branch",
]

SegmentObserver = Callable[[int, SegmentRecord], None]
"""Called with ``(sample number, segment)`` as each new segment of a branch is generated."""


def branch(
    trace: Trace,
    at: int,
    kind: InterventionKind,
    text: str | None,
    backend: ModelBackend,
    *,
    environment: SegmentedEnvironment | None = None,
    sampling_params: SamplingParams | None = None,
    on_segment: SegmentObserver | None = None,
    should_stop: StopCheck | None = None,
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
        on_segment: called with ``(0, segment)`` as each new segment is generated.
        should_stop: asked before each generation; True keeps what was generated, marked
            truncated (``metadata["stopped"]``).

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
    params = sampling_params or trace_sampling_params(trace)
    [child] = _branches(
        trace, at, kind, text, backend, environment, params, None, on_segment, should_stop
    )
    return child


def rerun_branch(
    recorded: Trace,
    parent: Trace,
    backend: ModelBackend,
    *,
    environment: SegmentedEnvironment | None = None,
) -> Trace:
    """``recorded``, a branch of ``parent``, made again from its record.

    The same point, the same intervention, its own sampling parameters and seed: greedy, or
    with the same seed on the same backend, the result is the recorded branch again, byte for
    byte.

    Example:
        >>> from llenvs.core.registry import environment_registry
        >>> from llenvs.core import SegmentedEnvironment
        >>> from llenvs.evaluation.replay_trace import replay_trace
        >>> from llenvs.inference import get_backend
        >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym",
        ...                                 size=100, seed=42)
        >>> parent = replay_trace(SegmentedEnvironment(base, "sentence"), 0,
        ...                       "Count. So 8. <answer>8</answer>", model="scripted")
        >>> script = ["Count. So 100. <answer>100</answer>"]
        >>> child = branch(parent, 1, InterventionKind.RESAMPLE, None, get_backend("scripted",
        ...                outputs=script))
        >>> rerun_branch(child, parent, get_backend("scripted", outputs=script)).response == (
        ...     child.response)
        True

    """
    record = recorded.parent
    if record is None or record.parent_id != parent.trace_id:
        raise ValueError(f"trace {recorded.trace_id} is not a branch of {parent.trace_id}")
    return branch(
        parent,
        record.segment_index,
        record.kind,
        record.text,
        backend,
        environment=environment,
        sampling_params=trace_sampling_params(recorded),
    )


def branch_samples(
    trace: Trace,
    at: int,
    backend: ModelBackend,
    count: int,
    *,
    environment: SegmentedEnvironment | None = None,
    sampling_params: SamplingParams | None = None,
    on_segment: SegmentObserver | None = None,
    should_stop: StopCheck | None = None,
) -> list[Trace]:
    """``count`` resamples of ``trace`` from segment ``at``, generated together in one batch.

    Each sample has its own seed, derived from the sampling seed (``derived_seeds``: the
    first is the seed itself), recorded in its trace, so any sample can be run again alone.

    Example:
        >>> from llenvs.core.registry import environment_registry
        >>> from llenvs.core import SegmentedEnvironment
        >>> from llenvs.evaluation.replay_trace import replay_trace
        >>> from llenvs.inference import get_backend
        >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym",
        ...                                 size=100, seed=42)
        >>> parent = replay_trace(SegmentedEnvironment(base, "sentence"), 0,
        ...                       "Count. So 8. <answer>8</answer>", model="scripted")
        >>> backend = get_backend("scripted", outputs=["Count. A. <answer>1</answer>"])
        >>> samples = branch_samples(parent, 1, backend, 2,
        ...                          sampling_params=SamplingParams(temperature=1.0, seed=5))
        >>> [s.parent.segment_index for s in samples], [s.run.seed for s in samples]
        ([1, 1], [5, 1000008])

    """
    params = sampling_params or trace_sampling_params(trace) or SamplingParams()
    seeds = derived_seeds(params.seed, count)
    return _branches(
        trace,
        at,
        InterventionKind.RESAMPLE,
        None,
        backend,
        environment,
        params,
        seeds,
        on_segment,
        should_stop,
    )


MAX_SAMPLES = 16
"""The most resamples one ``branch_samples`` call makes."""


def _branches(
    trace: Trace,
    at: int,
    kind: InterventionKind,
    text: str | None,
    backend: ModelBackend,
    environment: SegmentedEnvironment | None,
    params: SamplingParams | None,
    seeds: list[int | None] | None,
    on_segment: SegmentObserver | None,
    should_stop: StopCheck | None,
) -> list[Trace]:
    """Branches of ``trace`` at ``at``: one per seed (one with the params' own seed if None)."""
    count = 1 if seeds is None else len(seeds)
    record = check_branch(trace, at, kind, text, samples=count)
    if environment is None:
        env = trace_environment(trace, backend)  # the trace's own question, by construction
    else:
        env = environment
        _check_same_task(trace, env)
    opening = recorded_answer_opening(trace)  # branches open a missing answer as the parent did
    runner = SegmentedTrajectoryRunner(env, backend, params, answer_opening=opening)
    seeds = [runner.sampling_params.seed] if seeds is None else seeds
    prefix = trace_prefix(trace, at, keep_feedback_at=kind is not InterventionKind.FEEDBACK)
    episodes: dict[int, int] = {}

    def observe(episode: Episode, transition: Any) -> None:
        if on_segment is None:
            return
        number = episodes.setdefault(id(episode), len(episodes))
        text = transition.action.text
        end = len(transition.result.next_state.hidden.accumulated_text)
        index = len(episode.transitions) - 1
        on_segment(number, segment_from_transition(transition, index, end - len(text)))

    results = runner.run_batch(
        [trace.task.task_index] * len(seeds),
        prefixes=[prefix] * len(seeds),
        thens=[_intervention(kind, text)] * len(seeds),
        seeds=seeds,
        on_step=observe,
        should_stop=should_stop,
    )
    template = getattr(backend, "chat_template", None)
    return [
        result_trace(
            result,
            env,
            backend.name,
            replace(runner.sampling_params, seed=seed),
            chat_template=template,
            parent=record,
            backend_options=backend_options(backend),
            answer_opening=trace.run.answer_opening,
        )
        for result, seed in zip(results, seeds, strict=True)
    ]


def check_branch(
    trace: Trace, at: int, kind: InterventionKind, text: str | None, *, samples: int = 1
) -> BranchRecord:
    """The record of a branch of ``trace`` at ``at``, or a ``ValueError`` saying why not.

    Checks what needs no model, so a caller can refuse bad input before loading one: the
    branch point is in range, the text fits the kind (a forced segment that is not empty, a
    feedback that is not blank), ``samples`` is 1..``MAX_SAMPLES`` (more
    than one only for a resample), and something is left to do (a finished trace has nothing
    to complete or resample after its last segment; feedback there is a new user turn the
    model answers).

    Example:
        >>> from llenvs.traces import TaskRecord
        >>> t = Trace(task=TaskRecord("leg_counting", "reasoning_gym", {"size": 3}, 0, "q"),
        ...           response="", segments=())
        >>> check_branch(t, 1, InterventionKind.RESAMPLE, None)
        Traceback (most recent call last):
        ...
        ValueError: cannot branch after segment 1: the trace has 0 segments (choose 0..0)

    """
    if not 1 <= samples <= MAX_SAMPLES:
        raise ValueError(f"samples must be 1..{MAX_SAMPLES}, got {samples}")
    if samples != 1 and kind is not InterventionKind.RESAMPLE:
        raise ValueError(f"only a resample makes several samples, not {kind.value}")
    count = len(trace.segments)
    if not 0 <= at <= count:
        raise ValueError(
            f"cannot branch after segment {at}: the trace has {count} segments (choose 0..{count})"
        )
    record = BranchRecord(trace.trace_id, at, kind, text)  # checks text against kind
    if kind is InterventionKind.FORCE and not text:
        raise ValueError("the forced segment needs a text (an empty one would end the episode)")
    if kind is InterventionKind.FEEDBACK and not (text or "").strip():
        raise ValueError(f"the feedback needs a text, got {text!r}")
    ended = count > 0 and trace.segments[-1].terminal
    if at == count and ended and kind in (InterventionKind.COMPLETE, InterventionKind.RESAMPLE):
        raise ValueError(
            f"nothing to {kind.value} after segment {at}: the trace ended there (its last "
            f"segment is terminal); choose 0..{count - 1}, or give feedback after it"
        )
    return record


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
