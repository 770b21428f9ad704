"""The events of step-value analyses: each rollout, the progress of a run, each stored round.

``run_rollouts`` emits ``RolloutFinished`` as each rollout ends; ``analyze_trace`` emits
``RolloutsProgress`` (at the start and as each rollout ends), ``RoundDone`` once a round is
stored in the sidecar, ``TokenGenerated`` (core) for every token the backend generates, and
``Stopped`` (core) when its ``StopToken`` ended it. They are ``RunEvent``s
(``llenvs.core``), taken by the same observers as the runner's.

Example:
    >>> from llenvs.analysis.sampling._rollout import Rollout
    >>> done = RoundDone(rounds=2, rollouts=(Rollout(1, 0, 7, True, "8", 12),))
    >>> done.kind, done.tokens, done.record()
    ('round', 12, {'rounds': 2, 'rollouts': 1, 'tokens': 12})

"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from llenvs.analysis.sampling._rollout import Rollout
from llenvs.core import RunEvent

__all__ = ["RolloutFinished", "RolloutsProgress", "RoundDone"]


@dataclass(frozen=True)
class RolloutFinished(RunEvent):
    """One rollout ended (``rollout.error`` set when its backend calls kept failing).

    Example:
        >>> RolloutFinished(Rollout(0, 1, 5, False, None, 3)).record()
        {'boundary': 0, 'number': 1, 'success': False, 'tokens': 3, 'error': None}

    """

    kind: ClassVar[str] = "rollout"
    rollout: Rollout
    """The rollout, as it will be stored."""

    def record(self) -> dict[str, Any]:
        """Where it started, its number there, success, tokens and error."""
        rollout = self.rollout
        return {
            "boundary": rollout.boundary,
            "number": rollout.number,
            "success": rollout.success,
            "tokens": rollout.tokens,
            "error": rollout.error,
        }


@dataclass(frozen=True)
class RolloutsProgress(RunEvent):
    """How far an analysis got: rollouts finished in this run, and planned at most.

    Example:
        >>> RolloutsProgress(done=3, planned=8).record()
        {'done': 3, 'planned': 8}

    """

    kind: ClassVar[str] = "progress"
    done: int
    """Rollouts finished in this run (cut ones not counted)."""
    planned: int
    """Rollouts this run may make at most (the budget less what the sidecar held)."""


@dataclass(frozen=True)
class RoundDone(RunEvent):
    """A round of rollouts was stored (appended to the sidecar, when there is one).

    Example:
        >>> RoundDone(1, ()).tokens
        0

    """

    kind: ClassVar[str] = "round"
    rounds: int
    """Rounds stored in all, earlier runs' included."""
    rollouts: tuple[Rollout, ...]
    """The round's rollouts."""

    @property
    def tokens(self) -> int:
        """Tokens the round's rollouts generated."""
        return sum(rollout.tokens for rollout in self.rollouts)

    def record(self) -> dict[str, Any]:
        """The round's number, its rollouts and their tokens."""
        return {"rounds": self.rounds, "rollouts": len(self.rollouts), "tokens": self.tokens}
