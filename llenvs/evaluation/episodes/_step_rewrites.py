"""Step rewrites: how an episode changes a step it has already taken.

An episode cuts a step short at ``max_steps`` (``truncated``), makes a terminal step ordinary
again when feedback reopens the episode (``reopened``), and marks the step that feedback follows
(``with_feedback_after``). Each returns a new value; nothing is changed in place.

Example:
    >>> from llenvs.core._state import Observation, State, StateMetadata
    >>> from llenvs.core._step_result import StepResult
    >>> cut = truncated(StepResult(State(Observation("q"), None, StateMetadata(0)), Rewards()))
    >>> cut.truncated, cut.next_state.metadata.is_truncated
    (True, True)

"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from llenvs.core import Rewards, StepResult, Transition
from llenvs.traces.records import SegmentFlag

__all__ = ["reopened", "truncated", "with_feedback_after"]


def truncated(result: StepResult[Any]) -> StepResult[Any]:
    """``result`` cut short (``max_steps`` reached): truncated, in its next state too.

    Example:
        >>> from llenvs.core._state import Observation, State, StateMetadata
        >>> truncated(StepResult(State(Observation("q"), None, StateMetadata(0)), Rewards())).done
        True

    """
    metadata = replace(result.next_state.metadata, is_truncated=True)
    return replace(result, next_state=replace(result.next_state, metadata=metadata), truncated=True)


def reopened(last: Transition) -> Transition:
    """The terminal step ``last`` made ordinary again, as feedback after it reopens the episode.

    It loses the rewards judged once on a whole response (outcome, format), which the step that
    ends the reopened episode will carry, and is marked ``info["reopened"]``.

    Example:
        >>> from llenvs.core._action import Action
        >>> from llenvs.core._state import Observation, State, StateMetadata
        >>> s = State(Observation("q"), None, StateMetadata(0, is_terminal=True))
        >>> step = reopened(Transition(s, Action("4."), StepResult(s, Rewards(), terminated=True)))
        >>> step.result.done, step.result.next_state.metadata.is_terminal, step.info["reopened"]
        (False, False, True)

    """
    result = last.result
    metadata = replace(result.next_state.metadata, is_terminal=False, is_truncated=False)
    state = replace(result.next_state, metadata=metadata)
    kept = Rewards(tuple(s for s in result.rewards if s.reward_type.per_step))
    result = replace(
        result,
        next_state=state,
        rewards=kept,
        terminated=False,
        truncated=False,
        info={**result.info, "reopened": True},
    )
    return replace(last, result=result)


def with_feedback_after(last: Transition, text: str) -> Transition:
    """``last`` marked as the step feedback ``text`` follows (``info["feedback_after"]``).

    Example:
        >>> from llenvs.core._action import Action
        >>> from llenvs.core._state import Observation, State, StateMetadata
        >>> s = State(Observation("q"), None, StateMetadata(0))
        >>> with_feedback_after(Transition(s, Action("x"), StepResult(s, Rewards())), "Why?").info
        {'feedback_after': 'Why?'}

    """
    info = {**last.result.info, SegmentFlag.FEEDBACK_AFTER.value: text}
    return replace(last, result=replace(last.result, info=info))
