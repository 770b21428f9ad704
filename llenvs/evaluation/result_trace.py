"""``result_trace``: the trace of a runner's ``TrajectoryResult`` (evaluation results are traces).

Example:
    >>> from llenvs.core.registry import environment_registry
    >>> from llenvs.core import SamplingParams, SegmentedEnvironment
    >>> from llenvs.evaluation.runner import SegmentedTrajectoryRunner
    >>> from llenvs.inference import get_backend
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
    >>> env = SegmentedEnvironment(base, "sentence")
    >>> backend = get_backend("scripted", outputs=["Two dogs. So 8. <answer>8</answer>"])
    >>> runner = SegmentedTrajectoryRunner(env, backend, SamplingParams(max_tokens=64))
    >>> trace = result_trace(runner.run_trajectory(0), env, "scripted", runner.sampling_params)
    >>> [s.text for s in trace.segments], trace.run.segmenter, trace.run.model
    (['Two dogs. ', 'So 8. <answer>8</answer>'], 'sentence', 'scripted')

"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from llenvs.core.backend import SamplingParams
from llenvs.core.segmented_environment import SegmentedEnvironment
from llenvs.evaluation.trajectory_result import TrajectoryResult
from llenvs.traces.branch_record import BranchRecord
from llenvs.traces.from_steps import trace_from_steps
from llenvs.traces.run_record import RunRecord
from llenvs.traces.task_record import TaskRecord
from llenvs.traces.trace import Trace

__all__ = ["result_trace"]


def result_trace(
    result: TrajectoryResult,
    environment: SegmentedEnvironment,
    model: str,
    params: SamplingParams,
    *,
    chat_template: str | None = None,
    parent: BranchRecord | None = None,
    backend_options: Mapping[str, Any] | None = None,
    prm: Mapping[str, Any] | None = None,
    answer_opening: Mapping[str, Any] | None = None,
) -> Trace:
    """The trace of ``result``, run on ``environment`` by ``model`` with ``params``.

    The task record comes from resetting ``environment`` at the result's task index (resets
    are deterministic); the run record holds the model, sampling parameters, seed, system
    prompt, segmenter spec and ``backend_options`` (how to reach the model again: an openai
    server's URL, never its key), ``prm``, the record of the PRM that scored the steps
    (``prm_provenance``; None for none), and the ``answer_opening`` forced when a response
    ended without an answer (``AnswerOpening.to_record``); the metadata keeps the result's (JSON)
    metadata; feedback marks the segment before it.

    Example:
        >>> from llenvs.core.registry import environment_registry
        >>> from llenvs.core.trajectory import Trajectory
        >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
        >>> env = SegmentedEnvironment(base, "line")
        >>> empty = TrajectoryResult(Trajectory(), False, {"task_index": 2}, error="down")
        >>> trace = result_trace(empty, env, "scripted", SamplingParams())
        >>> trace.task.task_index, trace.error, trace.response
        (2, 'down', '')

    """
    task_index = int(result.metadata["task_index"])
    state, _ = environment.reset(options={"task_index": task_index})
    run = RunRecord.from_sampling_params(
        params,
        model=model,
        segmenter=environment.segmenter.spec,
        chat_template=chat_template,
        system_prompt=state.observation.system_prompt,
        backend_options=backend_options,
        prm=prm,
        answer_opening=answer_opening,
    )
    return trace_from_steps(
        result.trajectory.transitions,
        TaskRecord.from_state(environment.spec, state),
        run,
        messages=result.messages,
        error=result.error,
        parent=parent,
        metadata=dict(result.metadata),
    )
