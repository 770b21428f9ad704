"""``ExperimentRuns``: an experiment file opened as runs for Compare runs, one per position.

Opening reads the experiment file (``read_experiment``: a torn branch line is skipped, and its
warning, naming the file and line, is kept in ``skipped``), finds the parents' file it records
and the branches file beside it, and makes the position runs (``position_runs``). An experiment
whose file cannot be read, or whose parents' file is missing, is an ``ExperimentError`` naming
the file, so a page can say so and still offer the other runs. ``parent_tasks`` and
``trace_lines`` read what a run's rows need (``PositionRun.rows``).

Example:
    >>> import tempfile, pathlib
    >>> from llenvs.experiments._experiment_file import append_outcome, start_experiment
    >>> from llenvs.experiments._branch_outcome import BranchOutcome
    >>> from llenvs.experiments._parent_filter import ParentFilter
    >>> from llenvs.experiments._recipe import Recipe
    >>> from llenvs.experiments._where import RelativePositions
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "runs.jsonl").write_text("")
    >>> path = folder / "early.experiment.jsonl"
    >>> recipe = Recipe("early", ParentFilter(), RelativePositions((0.0, 0.5)), COMPLETE)
    >>> _ = start_experiment(path, recipe, folder / "runs.jsonl")
    >>> append_outcome(path, BranchOutcome("p", 0, 1, 1, 2, 0, 0, "b", False, "8", True, "1"))
    >>> opened = open_experiment_runs(path)
    >>> [run.name for run in opened.runs], opened.parents_file.name, opened.branches_file.name
    (['early @ position 0.5'], 'runs.jsonl', 'runs.branches.jsonl')
    >>> (folder / "runs.jsonl").unlink()
    >>> open_experiment_runs(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llenvs.experiments._experiment_error.ExperimentError: .../early.experiment.jsonl: its parents' file .../runs.jsonl is missing (recorded as 'runs.jsonl')

"""  # noqa: E501

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path

from llenvs.experiments._experiment_error import ExperimentError
from llenvs.experiments._experiment_file import read_experiment, recorded_parents
from llenvs.experiments._position_run import ParentTask, PositionRun, position_runs
from llenvs.traces.files import Sidecar, TraceReader, branches_path, max_line_bytes
from llenvs.traces.records import TaskIdentity, prompt_hash_of

__all__ = [
    "ExperimentRuns",
    "experiment_name",
    "open_experiment_runs",
    "parent_tasks",
    "trace_lines",
]


@dataclass(frozen=True)
class ExperimentRuns:
    """An experiment's position runs and the files they come from.

    Example:
        >>> ExperimentRuns(Path("x.experiment.jsonl"), Path("p.jsonl"), Path("p.branches.jsonl"),
        ...                (), ()).runs
        ()

    """

    path: Path
    """The experiment file."""
    parents_file: Path
    """The parents' trace file it records (absolute)."""
    branches_file: Path
    """The parents' branches file, where the branch traces are."""
    runs: tuple[PositionRun, ...]
    """One per position (and sample), in the recipe's order."""
    skipped: tuple[str, ...]
    """The experiment file's lines that were skipped (torn, malformed), each naming its line."""

    def require_parents(self) -> None:
        """Raise ``ExperimentError`` naming the experiment when its parents' file is gone.

        Example:
            >>> ExperimentRuns(Path("x.experiment.jsonl"), Path("/no/p.jsonl"),
            ...                Path("/no/p.branches.jsonl"), (), ()).require_parents()
            Traceback (most recent call last):
            ...
            llenvs.experiments._experiment_error.ExperimentError: x.experiment.jsonl: its parents' file /no/p.jsonl is missing

        """  # noqa: E501
        if not self.parents_file.is_file():
            raise ExperimentError(f"{self.path}: its parents' file {self.parents_file} is missing")


def experiment_name(path: str | os.PathLike[str]) -> str:
    """An experiment's name: its file's name without ``.experiment.jsonl``.

    Example:
        >>> experiment_name("a/hint.experiment.jsonl")
        'hint'

    """
    name = Path(path).name
    suffix = Sidecar.EXPERIMENT.suffix
    return name[: -len(suffix)] if name.endswith(suffix) else Path(path).stem


def open_experiment_runs(path: str | os.PathLike[str]) -> ExperimentRuns:
    """The position runs of the experiment file ``path`` (see the module)."""
    target = Path(path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        header, outcomes = read_experiment(target)
    parents = recorded_parents(target, header.parents_file)
    if not parents.is_file():
        raise ExperimentError(
            f"{target}: its parents' file {parents} is missing (recorded as "
            f"{header.parents_file!r})"
        )
    recipe = header.recipe
    return ExperimentRuns(
        target,
        parents,
        branches_path(parents),
        tuple(position_runs(experiment_name(target), recipe.where, recipe.how.samples, outcomes)),
        tuple(str(w.message) for w in caught),
    )


def parent_tasks(path: str | os.PathLike[str]) -> dict[str, ParentTask]:
    """Each trace of the file ``path`` by its id: its task and line (lines it cannot read: out).

    Example:
        >>> import tempfile, os
        >>> from llenvs.traces import TaskRecord, Trace, write_traces
        >>> file = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
        >>> t = Trace(task=TaskRecord("e", "a", {}, 4, "q"), response="", segments=(),
        ...           trace_id="t1")
        >>> _ = write_traces(file, [t])
        >>> parent_tasks(file)["t1"] == ParentTask(TaskIdentity.of("e", "q"), 4, 1)
        True

    """
    found: dict[str, ParentTask] = {}
    for line, _, data in TraceReader(path, max_line=max_line_bytes()).records():
        try:
            task = data["task"]
            prompt_hash = task.get("prompt_hash") or prompt_hash_of(str(task["prompt"]))
            identity = TaskIdentity(str(task["environment"]), str(prompt_hash))
            parent = ParentTask(identity, int(task["task_index"]), line)
            found.setdefault(str(data["trace_id"]), parent)
        except (KeyError, TypeError, AttributeError, ValueError):
            continue  # not a trace: the index of the file says so where it is shown
    return found


def trace_lines(path: str | os.PathLike[str]) -> dict[str, int]:
    """Each trace id of the file ``path`` and its line (from 1); {} when there is no file.

    Example:
        >>> trace_lines("/no/such.branches.jsonl")
        {}

    """
    if not Path(path).is_file():
        return {}
    lines: dict[str, int] = {}
    for line, _, data in TraceReader(path, max_line=max_line_bytes()).records():
        if isinstance(data, dict) and data.get("trace_id"):
            lines.setdefault(str(data["trace_id"]), line)
    return lines
