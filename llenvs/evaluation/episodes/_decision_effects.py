"""What a step decision does to an episode: force a segment, complete in one call, or feedback.

A step callback's return, or a start's ``then``, is applied before the episode's next step:
``None`` changes nothing; ``ForceAction`` makes its text the next segment and drops the
generated text not yet stepped; ``COMPLETE`` has the rest generated in one call; feedback
closes the assistant turn and opens a new one (after the terminal step, it reopens the episode
while budget is left, and the model answers it). On a step that ended the episode a
``ForceAction`` is refused (``TerminalStateError``) and ``COMPLETE`` is ignored.

Example:
    >>> from llenvs.core import SamplingParams, SegmentedEnvironment
    >>> from llenvs.evaluation.episodes._boundary_strategy import BoundaryContinuationStrategy
    >>> from llenvs.evaluation.episodes._episode import Episode
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
    >>> env = SegmentedEnvironment(base, "sentence")
    >>> episode = Episode(env, BoundaryContinuationStrategy(env.segmenter), SamplingParams(), 0)
    >>> apply_decision(episode, ForceAction("Two dogs. "))
    >>> episode.forced, episode.phase.name
    (ForceAction(text='Two dogs. '), 'GENERATING')

"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from llenvs.core import Message
from llenvs.core.errors import TerminalStateError
from llenvs.evaluation.episodes._episode_phase import EpisodePhase
from llenvs.evaluation.episodes._step_decision import Complete, ForceAction, StepDecision
from llenvs.evaluation.episodes._step_rewrites import reopened, with_feedback_after

if TYPE_CHECKING:
    from llenvs.evaluation.episodes._episode import Episode

__all__ = ["apply_decision"]


def apply_decision(episode: Episode, intervention: StepDecision) -> None:
    """Apply what a callback returned (or ``then``) to ``episode`` before its next step."""
    if intervention is None:
        return
    if isinstance(intervention, ForceAction):
        if episode.phase.done:
            raise TerminalStateError(
                f"ForceAction({intervention.text!r}) after the episode ended at segment "
                f"{episode.state.hidden.segment_index}: a forced action after the terminal step "
                "is refused"
            )
        episode.forced = intervention
        _drop_unstepped(episode)
        episode.turn_ids = None
    elif isinstance(intervention, Complete):
        if episode.phase.done:
            return  # nothing is left to complete
        if episode.phase.generation_ended:
            episode._move(EpisodePhase.COMPLETED)  # what is left is stepped as one shot
            return
        episode._move(EpisodePhase.COMPLETING)
        # Segments cut but not stepped rejoin the rest: the one call continues after them.
        episode.carried, episode.pending = "".join(episode.pending), []
        if episode.budget <= 0:
            episode._move(EpisodePhase.COMPLETED)
            episode.pending = episode.strategy.complete(episode.carried, "")
            episode.carried = ""
    elif isinstance(intervention, str):
        if not intervention:
            raise ValueError("feedback must be a non-empty string (return None for none)")
        if episode.phase.done:
            if episode.error is not None or not episode.transitions or episode.budget <= 0:
                return  # nothing to reopen, or no budget left to answer with
            _reopen(episode)
        _mark_feedback(episode, intervention)
        closed = (Message("assistant", episode.turn),) if episode.turn else ()
        episode.messages = (*episode.messages, *closed, Message("user", intervention))
        episode.turn = ""
        _drop_unstepped(episode)
        episode.turn_ids, episode.hint_ids = [], []
        hidden = episode.state.hidden
        start = len(hidden.accumulated_text)
        episode.state = replace(episode.state, hidden=replace(hidden, turn_start=start))
    else:
        raise TypeError(
            "a step callback returns None, feedback text, COMPLETE or ForceAction(text); "
            f"got {intervention!r}"
        )


def _reopen(episode: Episode) -> None:
    """Feedback after the terminal step: the episode goes on, the model answers it.

    The last step stops being terminal: it loses the rewards judged once on a whole
    response (outcome, format), which the step that ends the reopened episode will carry.
    """
    episode.transitions[-1] = reopened(episode.transitions[-1])
    episode.state = episode.transitions[-1].result.next_state
    episode._move(EpisodePhase.GENERATING)


def _mark_feedback(episode: Episode, text: str) -> None:
    """Record feedback: in the metadata, and as ``feedback_after`` on the step before it."""
    episode.feedback.append((len(episode.transitions), text))
    if episode.transitions:
        episode.transitions[-1] = with_feedback_after(episode.transitions[-1], text)


def _drop_unstepped(episode: Episode) -> None:
    """Forget the generated text not yet stepped (it continued a context that changed)."""
    episode.pending, episode.carried = [], ""
    episode.strategy.drop()
    if episode.phase.generation_ended:  # the model goes on, after the new context
        episode._move(
            EpisodePhase.COMPLETING if episode.phase.one_shot else EpisodePhase.GENERATING
        )
    episode.unassigned_ids, episode.unassigned_logprobs = [], []
