"""``replay_trace``: the trace of a given response, segmented and scored by an environment.

Example:
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym",
    ...                                 size=100, seed=42)
    >>> env = SegmentedEnvironment(base, "sentence")
    >>> trace = replay_trace(env, 0, "Count. So 100. <answer>100</answer>")
    >>> [s.text for s in trace.segments], trace.success, trace.run.spec.segmenter.text
    (['Count. ', 'So 100. <answer>100</answer>'], True, 'sentence')

"""

from __future__ import annotations

from llenvs.core import Action, SegmentedEnvironment, Transition
from llenvs.core.run_spec import RunSpec
from llenvs.traces.records import RunRecord, TaskRecord, Trace, trace_from_steps

__all__ = ["replay_trace"]


def replay_trace(
    environment: SegmentedEnvironment, task_index: int, response: str, model: str | None = None
) -> Trace:
    """Replay ``response`` to task ``task_index`` (``env.replay``) and record it as a trace.

    Every segment is flagged replayed; per-step rewards come from the batch hooks where reward
    functions have them (a PRM scores the whole response in one pass). ``model`` is the backend
    name of the model that wrote the response, where known (``ModelSpec.parse`` reads it; a
    name it does not know is kept as the record's unknown ``model``); nothing was sampled.

    Example:
        >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
        >>> trace = replay_trace(SegmentedEnvironment(base, "line"), 1, "", model="m")
        >>> len(trace.segments), trace.segments[0].terminal, trace.run.model_name
        (1, True, 'm')

    """
    state, _ = environment.reset(options={"task_index": task_index})
    task = TaskRecord.from_state(environment.spec, state)
    transitions: list[Transition] = []
    before = state
    for result in environment.replay(state, response):
        hidden = result.next_state.hidden
        action = Action(hidden.segments[-1], final=result.terminated)
        transitions.append(Transition(before, action, result))
        before = result.next_state
    run = RunRecord.made_with(
        RunSpec(),
        model_name=model,
        segmenter=environment.segmenter.spec,
        system_prompt=state.observation.system_prompt,
    )
    return trace_from_steps(transitions, task, run)
