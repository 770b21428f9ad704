"""``result_trace``: the trace of a runner's ``TrajectoryResult`` (evaluation results are traces).

Example:
    >>> from llenvs.core import SamplingParams, SegmentedEnvironment
    >>> from llenvs.core.run_spec import ModelSpec, RunSpec
    >>> from llenvs.evaluation.episodes._runner import SegmentedTrajectoryRunner
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
    >>> env = SegmentedEnvironment(base, "sentence")
    >>> backend = get_backend("scripted", outputs=["Two dogs. So 8. <answer>8</answer>"])
    >>> runner = SegmentedTrajectoryRunner(env, backend, SamplingParams(max_tokens=64))
    >>> spec = RunSpec(model=ModelSpec.parse("scripted"), sampling=runner.sampling_params)
    >>> trace = result_trace(runner.run_trajectory(0), env, spec)
    >>> [s.text for s in trace.segments], trace.run.spec.segmenter.text, trace.run.model_name
    (['Two dogs. ', 'So 8. <answer>8</answer>'], 'sentence', 'scripted')

"""

from __future__ import annotations

from llenvs.core import SegmentedEnvironment
from llenvs.core.run_spec import RunSpec
from llenvs.evaluation.episodes._trajectory_result import TrajectoryResult
from llenvs.traces.records import BranchRecord, RunRecord, TaskRecord, Trace, trace_from_steps

__all__ = ["result_trace"]


def result_trace(
    result: TrajectoryResult,
    environment: SegmentedEnvironment,
    spec: RunSpec,
    *,
    model_name: str | None = None,
    chat_template: str | None = None,
    parent: BranchRecord | None = None,
) -> Trace:
    """The trace of ``result``, run on ``environment`` as ``spec`` says.

    The task record comes from resetting ``environment`` at the result's task index (resets
    are deterministic); the run record holds ``spec`` (the model that generated, with its
    precision or server, never a key; the sampling parameters with their seed; the PRM that
    scored the steps; the answer opening; the task source) with the segmenter that cut the
    response, the chat template and the system prompt (``RunRecord.made_with``;
    ``model_name`` names a model no spec names); the metadata keeps the result's (JSON)
    metadata; feedback marks the segment before it.

    Example:
        >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
        >>> env = SegmentedEnvironment(base, "line")
        >>> empty = TrajectoryResult(Trajectory(), False, {"task_index": 2}, error="down")
        >>> trace = result_trace(empty, env, RunSpec(sampling=SamplingParams()))
        >>> trace.task.task_index, trace.error, trace.response
        (2, 'down', '')

    """
    task_index = int(result.metadata["task_index"])
    state, _ = environment.reset(options={"task_index": task_index})
    run = RunRecord.made_with(
        spec,
        model_name=model_name,
        segmenter=environment.segmenter.spec,
        chat_template=chat_template,
        system_prompt=state.observation.system_prompt,
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
