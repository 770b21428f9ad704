"""``ConsoleProgress``: a live progress bar of an evaluation on stderr (rich).

It shows tasks done out of all, the success rate so far, errors, steps taken, elapsed and
remaining time. On a terminal it redraws in place; elsewhere (CI logs) rich prints it plainly.

Example:
    >>> from llenvs.evaluation.episodes._events import RunStarted, TrajectoryEnded
    >>> from llenvs.evaluation.episodes._trajectory_result import TrajectoryResult
    >>> bar = ConsoleProgress()
    >>> bar(RunStarted("leg_counting", "scripted", "sentence", (0, 1), resumed=0))
    >>> bar(TrajectoryEnded(0, TrajectoryResult(Trajectory(), success=True)))
    >>> bar.done, bar.succeeded
    (1, 1)
    >>> bar.close()

"""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from llenvs.core import RunEvent
from llenvs.evaluation.episodes import (
    RunStarted,
    StepTaken,
    TrajectoryEnded,
    TrajectoryErrored,
)

__all__ = ["ConsoleProgress"]


class ConsoleProgress:
    """A progress bar fed by evaluation events (a ``RunObserver``; ``close`` ends it).

    Arguments:
        console: where to draw (stderr by default).

    Example:
        >>> ConsoleProgress().done
        0

    """

    def __init__(self, console: Console | None = None) -> None:
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[summary]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console or Console(stderr=True),
        )
        self._task: TaskID | None = None
        self.done = 0
        """Finished trajectories (resumed ones included)."""
        self.succeeded = 0
        """Of those, successful ones."""
        self.errors = 0
        """Trajectories ended by a backend failure."""
        self.steps = 0
        """Steps taken in this run."""

    def __call__(self, event: RunEvent) -> None:
        """Advance the bar."""
        if isinstance(event, RunStarted):
            self.done = event.resumed
            self._progress.start()
            self._task = self._progress.add_task(
                event.environment,
                total=len(event.task_indices),
                completed=event.resumed,
                summary=self._summary(),
            )
            return
        if isinstance(event, StepTaken):
            self.steps += 1
        elif isinstance(event, TrajectoryEnded):
            self.done += 1
            self.succeeded += event.success
        elif isinstance(event, TrajectoryErrored):
            self.done += 1
            self.errors += 1
        else:
            return
        if self._task is not None:
            self._progress.update(self._task, completed=self.done, summary=self._summary())

    def close(self) -> None:
        """Stop redrawing (the last state stays on screen)."""
        self._progress.stop()

    def _summary(self) -> str:
        """Success so far, errors, steps."""
        rate = f"{self.succeeded / self.done:.0%}" if self.done else "-"
        errors = f" errors {self.errors}" if self.errors else ""
        return f"success {rate}{errors} steps {self.steps}"
