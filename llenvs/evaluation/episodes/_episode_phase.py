"""``EpisodePhase``: where an ``Episode`` is, and the one table of moves between phases.

An episode generates segment by segment (``GENERATING``) or, after ``COMPLETE``, the rest of
the response in one call (``COMPLETING``); once generation has ended it steps what is left
(``GENERATED``, ``COMPLETED``); it ends on a terminal step (``FINISHED``), at ``max_steps``
(``TRUNCATED``), when told to stop (``STOPPED``) or on a backend failure (``FAILED``). Feedback
after a finished or truncated episode reopens it. ``TRANSITIONS`` lists every legal move; any
other raises ``EpisodePhaseError`` naming both phases (a bug, never a user's mistake).

Example:
    >>> EpisodePhase.GENERATING.move_to(EpisodePhase.GENERATED)
    <EpisodePhase.GENERATED: 'generated'>
    >>> EpisodePhase.STOPPED.move_to(EpisodePhase.GENERATING)
    Traceback (most recent call last):
    ...
    llenvs.core.errors.EpisodePhaseError: an episode cannot go from stopped to generating

"""

from __future__ import annotations

from enum import Enum

from llenvs.core.errors import EpisodePhaseError

__all__ = ["TRANSITIONS", "EpisodePhase"]


class EpisodePhase(Enum):
    """Where an episode is (see the module docstring).

    Example:
        >>> EpisodePhase.COMPLETED.one_shot, EpisodePhase.COMPLETED.generation_ended
        (True, True)

    """

    GENERATING = "generating"
    """Asking the model for the next segment."""
    COMPLETING = "completing"
    """After ``COMPLETE``: the next call generates the rest of the response at once."""
    GENERATED = "generated"
    """Generation has ended; the segments it left are stepped."""
    COMPLETED = "completed"
    """The one call after ``COMPLETE`` has ended; its segments are stepped, with no callbacks."""
    FINISHED = "finished"
    """Ended on a step the environment called done (terminal)."""
    TRUNCATED = "truncated"
    """Ended at ``max_steps``."""
    STOPPED = "stopped"
    """Ended between segments because its ``StopToken`` was stopped (kept, marked truncated)."""
    FAILED = "failed"
    """Ended on a backend failure, with the transitions it had."""

    @property
    def done(self) -> bool:
        """Whether the episode has ended (feedback may still reopen a finished or truncated one).

        Example:
            >>> EpisodePhase.TRUNCATED.done, EpisodePhase.GENERATED.done
            (True, False)

        """
        return self in _ENDED

    @property
    def one_shot(self) -> bool:
        """Whether the rest of the response comes from one call (after ``COMPLETE``).

        Example:
            >>> EpisodePhase.COMPLETING.one_shot
            True

        """
        return self in (EpisodePhase.COMPLETING, EpisodePhase.COMPLETED)

    @property
    def generation_ended(self) -> bool:
        """Whether the model has said all it will say in this turn (segments may be left).

        Example:
            >>> EpisodePhase.GENERATED.generation_ended, EpisodePhase.COMPLETING.generation_ended
            (True, False)

        """
        return self in (EpisodePhase.GENERATED, EpisodePhase.COMPLETED)

    def move_to(self, target: EpisodePhase) -> EpisodePhase:
        """``target``, when the table allows the move (staying put always is).

        Example:
            >>> EpisodePhase.FINISHED.move_to(EpisodePhase.GENERATING)  # feedback reopens it
            <EpisodePhase.GENERATING: 'generating'>

        """
        if target is not self and target not in TRANSITIONS[self]:
            raise EpisodePhaseError(f"an episode cannot go from {self.value} to {target.value}")
        return target


_ENDED = frozenset(
    {EpisodePhase.FINISHED, EpisodePhase.TRUNCATED, EpisodePhase.STOPPED, EpisodePhase.FAILED}
)

_S = EpisodePhase
TRANSITIONS: dict[EpisodePhase, frozenset[EpisodePhase]] = {
    _S.GENERATING: frozenset(
        {_S.COMPLETING, _S.GENERATED, _S.FINISHED, _S.TRUNCATED, _S.STOPPED, _S.FAILED}
    ),
    _S.COMPLETING: frozenset({_S.COMPLETED, _S.FINISHED, _S.TRUNCATED, _S.STOPPED, _S.FAILED}),
    _S.GENERATED: frozenset({_S.GENERATING, _S.COMPLETED, _S.FINISHED, _S.TRUNCATED}),
    _S.COMPLETED: frozenset({_S.COMPLETING, _S.FINISHED, _S.TRUNCATED}),
    _S.FINISHED: frozenset({_S.GENERATING}),
    _S.TRUNCATED: frozenset({_S.GENERATING}),
    _S.STOPPED: frozenset(),
    _S.FAILED: frozenset(),
}
"""Every legal move, from each phase to the phases it may go to next.

From GENERATING: COMPLETE, the end of generation, a terminal step, ``max_steps``, a stop, a
failure. From COMPLETING: the one call's end, a terminal or ``max_steps`` step (a forced answer
opening), a stop, a failure. From GENERATED: feedback or a forced segment (generation goes on),
COMPLETE, a terminal step, ``max_steps``. From COMPLETED: a forced answer opening (one more
call), a terminal step, ``max_steps``. From FINISHED or TRUNCATED: feedback reopens the episode.
STOPPED and FAILED are final."""
