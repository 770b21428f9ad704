"""``Tally``: the rollouts counted at one boundary, what every schedule and reading starts from."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Tally"]


@dataclass(frozen=True)
class Tally:
    """The rollouts counted at one boundary so far.

    An ``exact`` tally is a value known without sampling (after an ended trace's last segment:
    its own outcome); schedules weigh it but never give it rollouts.

    Example:
        >>> Tally(3, 4).rate, Tally(1, 1, exact=True).rate
        (0.75, 1.0)

    """

    successes: int
    """Rollouts that succeeded."""
    trials: int
    """Rollouts counted."""
    exact: bool = field(default=False, repr=False)
    """Whether ``rate`` is known exactly (not estimated): never sampled."""

    @property
    def rate(self) -> float:
        """The success rate (0.5 with no trials: nothing known)."""
        return self.successes / self.trials if self.trials else 0.5
