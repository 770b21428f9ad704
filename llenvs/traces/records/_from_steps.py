"""Build a trace from the transitions of an episode (the runner's, or a replay's).

Example:
    >>> trace_from_steps([], TaskRecord("e", "a", {}, 0, "q")).segments
    ()

"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from llenvs.core import Message, RewardType, Transition
from llenvs.traces.records._branch import BranchRecord
from llenvs.traces.records._run import RunRecord
from llenvs.traces.records._segment import SegmentRecord
from llenvs.traces.records._segment_flag import SegmentFlag
from llenvs.traces.records._task import TaskRecord
from llenvs.traces.records._trace import Trace

__all__ = ["segment_from_transition", "step_flags", "trace_from_steps"]

_ORIGINS = (SegmentFlag.REPLAYED, SegmentFlag.FORCED, SegmentFlag.GENERATED)
"""A step's origin flags, the first one present winning."""


def step_flags(info: Mapping[str, Any], feedback_after: bool = False) -> frozenset[SegmentFlag]:
    """The ``SegmentFlag`` values of a step, from its ``info``.

    The runner marks a step's flags in ``info`` under their values (``info["forced"]``,
    ``info["one_shot"]``, ``info["feedback_after"]`` holds the feedback text). A step with no
    origin flag (a replay by the environment) is generated when it carries ``token_ids``, else
    replayed; replayed wins over forced, forced over generated.

    Example:
        >>> sorted(f.value for f in step_flags({"forced": True, "one_shot": True}))
        ['forced', 'one_shot']
        >>> sorted(f.value for f in step_flags({"token_ids": (1,)}, feedback_after=True))
        ['feedback_after', 'generated']

    """
    flags = {flag for flag in SegmentFlag if info.get(flag.value)}
    origins = [flag for flag in _ORIGINS if flag in flags]
    flags.difference_update(_ORIGINS)
    if origins:
        flags.add(origins[0])
    else:
        flags.add(SegmentFlag.GENERATED if "token_ids" in info else SegmentFlag.REPLAYED)
    if feedback_after:
        flags.add(SegmentFlag.FEEDBACK_AFTER)
    return frozenset(flags)


WHOLE_RESPONSE = (RewardType.OUTCOME, RewardType.FORMAT)
"""The reward types judged once, on the whole response: a trace's ``final_rewards``."""

UNRATED_KEY = "unrated"
"""A signal whose metadata sets this key to True carries no score (a PRM that did not rate the
step: ``llenvs.rewards.prm.UNRATED_KEY``); its segment stores nothing for it."""


def segment_from_transition(
    transition: Transition, index: int, start: int, *, feedback_after: bool = False
) -> SegmentRecord:
    """The record of one step, whose segment starts at character ``start`` of the response.

    Flags come from ``info`` (``step_flags``). A signal marked unrated (``UNRATED_KEY``) is
    left out of ``rewards`` and ``prm_scores``.

    Example:
        >>> from llenvs.core._action import Action
        >>> from llenvs.core._signal import Rewards, Signal
        >>> from llenvs.core._state import Observation, State, StateMetadata
        >>> from llenvs.core._step_result import StepResult
        >>> s = State(Observation("q"), None, StateMetadata(0))
        >>> prm = Rewards((Signal("prm", RewardType.PROCESS, 0.5),))
        >>> step = Transition(s, Action("x. "), StepResult(s, prm, info={"token_ids": (7, 8)}))
        >>> r = segment_from_transition(step, 0, 0)
        >>> r.end, r.token_ids, r.prm_scores, sorted(f.value for f in r.flags)
        (3, (7, 8), {'prm': 0.5}, ['generated'])

    """
    info = transition.info
    token_ids = info.get("token_ids")
    logprobs = info.get("logprobs")
    text = transition.action.text
    rewards = [s for s in transition.rewards if s.metadata.get(UNRATED_KEY) is not True]
    return SegmentRecord(
        index=index,
        start=start,
        end=start + len(text),
        text=text,
        token_ids=None if token_ids is None else tuple(int(t) for t in token_ids),
        logprobs=None if logprobs is None else tuple(float(p) for p in logprobs),
        rewards={s.name: float(s.reward) for s in rewards},
        prm_scores={
            s.name: float(s.reward) for s in rewards if s.reward_type is RewardType.PROCESS
        },
        flags=step_flags(info, feedback_after),
        terminal=transition.result.terminated,
    )


def trace_from_steps(
    transitions: Sequence[Transition],
    task: TaskRecord,
    run: RunRecord | None = None,
    *,
    messages: Sequence[Message] = (),
    feedback_after: Collection[int] = (),
    error: str | None = None,
    parent: BranchRecord | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> Trace:
    """A trace of ``transitions``: one segment per transition, in order.

    ``final_rewards`` are the OUTCOME and FORMAT rewards of the last step when it ended the
    episode; ``success`` follows the runner's rule (at least one OUTCOME reward, all >= 1.0).
    ``feedback_after`` holds the indices of the segments feedback was injected after.

    Example:
        >>> from llenvs.core import SegmentedEnvironment, SentenceSegmenter
        >>> from llenvs.core._action import Action
        >>> env = SegmentedEnvironment(environment_registry.get(
        ...     name="leg_counting", adapter="reasoning_gym", size=10, seed=1), SentenceSegmenter())
        >>> state, _ = env.reset(options={"task_index": 0})
        >>> steps, before = [], state
        >>> for result in env.replay(state, "Two dogs. So 8. <answer>8</answer>"):
        ...     steps.append(Transition(before, Action(result.next_state.hidden.segments[-1]),
        ...                             result))
        ...     before = result.next_state
        >>> trace = trace_from_steps(steps, TaskRecord.from_state(env.spec, state))
        >>> [s.text for s in trace.segments], sorted(trace.final_rewards)
        (['Two dogs. ', 'So 8. <answer>8</answer>'], ['correctness', 'format'])

    """
    segments: list[SegmentRecord] = []
    offset = 0
    for index, transition in enumerate(transitions):
        segment = segment_from_transition(
            transition, index, offset, feedback_after=index in feedback_after
        )
        segments.append(segment)
        offset = segment.end
    final: dict[str, float] = {}
    outcomes: list[float] = []
    if transitions and transitions[-1].result.terminated:
        last = transitions[-1].rewards
        final = {s.name: float(s.reward) for s in last if s.reward_type in WHOLE_RESPONSE}
    for transition in transitions:
        outcomes.extend(s.reward for s in transition.rewards.of_type(RewardType.OUTCOME))
    return Trace(
        task=task,
        run=RunRecord() if run is None else run,
        messages=tuple(messages),
        response="".join(s.text for s in segments),
        segments=tuple(segments),
        final_rewards=final,
        success=bool(outcomes) and all(reward >= 1.0 for reward in outcomes),
        error=error,
        parent=parent,
        metadata={} if metadata is None else dict(metadata),
    )
