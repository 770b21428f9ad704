"""``ExperimentRun``: what an experiment run leaves: its file, its recipe, its branches.

Example:
    >>> import pathlib
    >>> from llenvs.experiments._experiment_file import ExperimentHeader
    >>> from llenvs.experiments._parent_filter import ParentFilter
    >>> from llenvs.experiments._recipe import Recipe
    >>> from llenvs.experiments._where import EveryBoundary
    >>> header = ExperimentHeader(Recipe("r", ParentFilter(), EveryBoundary(), COMPLETE),
    ...                           "/p.jsonl", "0" * 16, "2026-01-01T00:00:00+00:00")
    >>> ExperimentRun(pathlib.Path("x"), header, (), planned=4, ran=0).complete
    False

"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from llenvs.experiments._branch_outcome import BranchOutcome
from llenvs.experiments._experiment_file import ExperimentHeader

__all__ = ["ExperimentRun"]


@dataclass(frozen=True)
class ExperimentRun:
    """An experiment after a run (finished, stopped or resumed)."""

    path: Path
    """The experiment file."""
    header: ExperimentHeader
    """Its recipe, parents' file and id."""
    outcomes: tuple[BranchOutcome, ...]
    """Every branch recorded so far, earlier runs' included."""
    planned: int
    """Branches the recipe makes in all."""
    ran: int
    """Branches this run made and recorded."""

    @property
    def complete(self) -> bool:
        """Whether every planned branch is recorded."""
        return len(self.outcomes) >= self.planned
