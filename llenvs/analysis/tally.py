"""``Tally``: the rollouts counted at one boundary, what every schedule and reading starts from."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Tally"]


@dataclass(frozen=True)
class Tally:
    """The rollouts counted at one boundary so far.

    Example:
        >>> Tally(3, 4).rate
        0.75

    """

    successes: int
    """Rollouts that succeeded."""
    trials: int
    """Rollouts counted."""

    @property
    def rate(self) -> float:
        """The success rate (0.5 with no trials: nothing known)."""
        return self.successes / self.trials if self.trials else 0.5
