"""An experiment run from the workbench, in the background, with its progress and Stop.

``ExperimentJob`` runs the library's ``run_experiment`` on one of the app's worker threads and
keeps its last ``BranchRecorded`` event (branches recorded, planned, flips so far, time left),
so the Experiments page redraws how far it got. ``stop`` lets the branches in flight end
unrecorded; the next run of the same recipe resumes (finished branches are kept).

Example:
    >>> ExperimentProgress(3, 10, 1, 14.0).line()
    '3 of 10 branches recorded, 1 flip so far, about 14 s left'
    >>> ExperimentProgress(0, 4, 0, None).line()
    '0 of 4 branches recorded, 0 flips so far'

"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from llenvs.core import ModelBackend, RunControl, RunEvent
from llenvs.experiments import BranchRecorded, ExperimentRun, Recipe, run_experiment
from llenvs.workbench._wording import count
from llenvs.workbench.jobs._background_job import BackgroundJob

__all__ = ["ExperimentJob", "ExperimentProgress"]


@dataclass(frozen=True)
class ExperimentProgress:
    """How far an experiment run is."""

    done: int
    """Branches recorded (earlier runs' included)."""
    planned: int
    """Branches the recipe makes in all."""
    flips: int
    """Recorded branches whose verdict differs from their parent's."""
    remaining_s: float | None
    """Estimated seconds left (None before the first branch of this run)."""

    def line(self) -> str:
        """The progress in words."""
        left = "" if self.remaining_s is None else f", about {self.remaining_s:.0f} s left"
        return (
            f"{self.done} of {count(self.planned, 'branch', 'branches')} recorded, "
            f"{count(self.flips, 'flip')} so far{left}"
        )


class ExperimentJob(BackgroundJob):
    """``run_experiment(recipe, parents_file, path, backend)`` in a thread (see the module)."""

    def __init__(
        self,
        recipe: Recipe,
        parents_file: str | os.PathLike[str],
        path: Path,
        backend: ModelBackend,
        planned: int,
        *,
        in_flight: int = 8,
        session: str = "",
    ) -> None:
        super().__init__(name="llenvs-experiment", start=False, session=session, model=backend)
        self.recipe = recipe
        """What runs."""
        self.parents_file = Path(parents_file)
        """The parents' trace file (branches go to its sidecar)."""
        self.path = path
        """The experiment file."""
        self.backend = backend
        """The model."""
        self.in_flight = in_flight
        """Branches running at once."""
        self.progress = ExperimentProgress(0, planned, 0, None)
        """The latest progress (replaced whole, so a reader never sees half of one)."""
        self.result: ExperimentRun | None = None
        """The run, once it ended without error."""
        self.start()

    def observe(self, event: RunEvent) -> None:
        """Keep the progress of each recorded branch."""
        if isinstance(event, BranchRecorded):
            self.progress = ExperimentProgress(
                event.done, event.planned, event.flips, event.remaining_s
            )

    def work(self) -> None:
        """Run (or resume) the experiment, stopping on ``stop``."""
        self.result = run_experiment(
            self.recipe,
            self.parents_file,
            self.path,
            self.backend,
            in_flight=self.in_flight,
            control=RunControl(self.observe, self.stop_token),
        )
        run = self.result
        flips = sum(o.flipped for o in run.outcomes)
        self.progress = ExperimentProgress(len(run.outcomes), run.planned, flips, None)
