"""The runs Compare runs offers: the trace files of the folder and each experiment's positions.

A trace file is a run as it stands. An experiment found in the folder (``*.experiment.jsonl``)
gives one run per position, and per sample where it takes several
(``llenvs.experiments``): its branch traces, each paired with its parent's task,
with the verdict the experiment file records, so that compared with the parents' file the
numbers are the experiment summary's for those branches. An experiment that cannot be opened
(a torn header, its parents' file missing) is a problem naming the file; the other runs stay
offered. The Experiments page opens it with an experiment's parents and positions chosen
(``open_in_compare_runs``); a URL ``?runs=NAME&runs=NAME…`` (``compare_params``) does the same.

Example:
    >>> table = experiment_table(
    ...     RunRows((RunRow(TaskIdentity("e", "h"), 3, 1, "b", 7, True, 2),), 0, 0),
    ...     pd.DataFrame({"line": [7], "reward": [1.0], "prm_min": [0.5]}))
    >>> table[["line", "task", "success", "reward", "segment"]].values.tolist()
    [[7, 3, True, 1.0, 2]]

"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

import pandas as pd
import streamlit as st

from llenvs.analysis import most_shared
from llenvs.experiments import (
    ExperimentError,
    ExperimentRuns,
    ParentTask,
    PositionRun,
    RunRow,
    RunRows,
    open_experiment_runs,
)
from llenvs.traces.files import Sidecar
from llenvs.traces.records import TaskIdentity
from llenvs.ui.common import cached_index, stamp
from llenvs.ui.runs._page import TASK, Run
from llenvs.workbench import count
from llenvs.workbench.files import file_tasks, trace_files

__all__ = [
    "PARAM",
    "PRESELECT",
    "RunChoices",
    "compare_params",
    "default_runs",
    "experiment_table",
    "open_in_compare_runs",
    "position_as_run",
    "preselect",
    "run_choices",
]

PARAM = "runs"
"""The query parameter naming the runs to preselect (repeated, one per run)."""

PRESELECT = "runs-preselect"
"""The session key through which another page chooses the runs (read once)."""

COMPARE_RUNS = "pages/compare_runs.py"

_ROW_COLUMNS = ["line", "environment", "prompt_hash", "task", "success", "segment"]


@dataclass(frozen=True)
class RunChoices:
    """What the page can compare: trace files and experiment positions by name, and problems.

    Example:
        >>> RunChoices({}, {}, ()).names
        []

    """

    files: dict[str, Path]
    """Trace files by name."""
    positions: dict[str, tuple[ExperimentRuns, PositionRun]] = field(default_factory=dict)
    """Experiment position runs by name, with the experiment they come from."""
    problems: tuple[str, ...] = ()
    """Experiments that could not be opened, or lines of them skipped, each naming the file."""

    @property
    def names(self) -> list[str]:
        """Every run's name: the trace files first, then the experiments' positions."""
        return [*self.files, *self.positions]

    def run(self, name: str) -> Run:
        """The run named ``name``, with its table loaded."""
        if name in self.files:
            path = self.files[name]
            return Run(path.stem, cached_index(str(path)).table, path)
        experiment, position = self.positions[name]
        return position_as_run(experiment, position)


def run_choices(folder: str | os.PathLike[str]) -> RunChoices:
    """The trace files of ``folder`` and the position runs of its experiments (by name).

    Example:
        >>> run_choices("/no/such/folder").names
        []

    """
    files = {path.name: path for path in trace_files(folder)}
    positions: dict[str, tuple[ExperimentRuns, PositionRun]] = {}
    problems: list[str] = []
    for path in sorted(Path(folder).glob(f"*{Sidecar.EXPERIMENT.suffix}")):
        try:
            experiment = _experiment(str(path), stamp(str(path)))
            experiment.require_parents()  # gone since it was opened
        except ExperimentError as error:
            problems.append(f"{error} — its runs are not offered.")
            continue
        problems.extend(experiment.skipped)
        for run in experiment.runs:
            positions[run.name] = (experiment, run)
    return RunChoices(files, positions, tuple(problems))


@st.cache_data(max_entries=16, show_spinner=False)
def _experiment(path: str, version: tuple[int, int]) -> ExperimentRuns:
    del version
    return open_experiment_runs(path)


def position_as_run(experiment: ExperimentRuns, run: PositionRun) -> Run:
    """An experiment position as a run: its branches' rows, linked to the branches file."""
    experiment.require_parents()
    parents = _parent_tasks(cached_index(str(experiment.parents_file)).table)
    branches = (
        cached_index(str(experiment.branches_file)).table
        if experiment.branches_file.is_file()
        else pd.DataFrame(columns=["trace_id", "line", "reward", "prm_min"])
    )
    lines = dict(zip(branches["trace_id"], branches["line"], strict=True))
    rows = run.rows(parents, {str(k): int(v) for k, v in lines.items()})
    notes = [
        f"{count(len(run.branches), 'branch', 'branches')} made at {run.position}"
        f"{'' if run.sample is None else f' (sample {run.sample})'} on the parents in "
        f"{experiment.parents_file.name}, each paired with its parent's task; the verdicts are "
        f"the experiment file's, the traces are in {experiment.branches_file.name}."
    ]
    if rows.describe():
        notes.append(f"{rows.describe()}.")
    missing = sum(1 for row in rows.rows if row.line is None)
    if missing:
        notes.append(
            f"{count(missing, 'branch', 'branches')} not found in "
            f"{experiment.branches_file.name}: compared, but not linked."
        )
    return Run(
        run.name, experiment_table(rows, branches), experiment.branches_file, " ".join(notes)
    )


def _parent_tasks(table: pd.DataFrame) -> dict[str, ParentTask]:
    """The parents' index table as ``ParentTask`` values by trace id (first line of an id)."""
    found: dict[str, ParentTask] = {}
    for trace_id, environment, prompt_hash, task, line in zip(
        table["trace_id"],
        table["environment"],
        table["prompt_hash"],
        table["task"],
        table["line"],
        strict=True,
    ):
        identity = TaskIdentity(str(environment), str(prompt_hash))
        found.setdefault(str(trace_id), ParentTask(identity, int(task), int(line)))
    return found


def experiment_table(rows: RunRows, branches: pd.DataFrame) -> pd.DataFrame:
    """A position run's rows as an index table (the columns Compare runs reads).

    ``branches``: the branches file's index table (its final reward and lowest PRM by line).
    """
    table = pd.DataFrame([_row(row) for row in rows.rows], columns=_ROW_COLUMNS)
    table["line"] = table["line"].astype("Int64")
    scores = branches[["line", "reward", "prm_min"]].drop_duplicates("line")
    scores = scores.astype({"line": "Int64"})
    return table.merge(scores, on="line", how="left")


def _row(row: RunRow) -> dict[str, object]:
    return {
        "line": row.line,
        "environment": row.identity.environment,
        "prompt_hash": row.identity.prompt_hash,
        "task": row.task_index,
        "success": row.success,
        "segment": row.segment,
    }


def compare_params(experiment: str | os.PathLike[str]) -> dict[str, list[str]]:
    """The query parameters that open Compare runs on an experiment's parents and positions.

    Example:
        >>> compare_params("/no/such.experiment.jsonl")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.experiments._experiment_error.ExperimentError: /no/such.experiment.jsonl: no such ...

    """
    opened = _experiment(str(experiment), stamp(str(experiment)))
    return {PARAM: [opened.parents_file.name, *(run.name for run in opened.runs)]}


def open_in_compare_runs(experiment: str | os.PathLike[str]) -> NoReturn:
    """Switch to Compare runs with an experiment's parents and positions chosen.

    The choice goes through the session (``PRESELECT``), read once by ``preselect``; the same
    choice as a shareable URL is ``compare_params``.
    """
    st.session_state[PRESELECT] = compare_params(experiment)[PARAM]
    st.switch_page(COMPARE_RUNS)


def preselect(choices: RunChoices, key: str) -> list[str]:
    """Set what the runs box ``key`` holds before it is drawn; the URL's runs not offered.

    The runs the URL names (``?runs=``) or ``open_in_compare_runs`` chose (each read once
    and removed, so the user's later choices stand), else what the box held (runs no longer
    offered dropped), else the two runs that share the most tasks (``default_runs``).
    """
    wanted = [w for w in st.query_params.get_all(PARAM) if w] or st.session_state.pop(PRESELECT, [])
    if wanted:
        if PARAM in st.query_params:
            del st.query_params[PARAM]
        st.session_state[key] = wanted
    elif key not in st.session_state:
        st.session_state[key] = default_runs(choices)
    held = st.session_state[key]
    st.session_state[key] = [name for name in held if name in choices.names]
    return [name for name in wanted if name not in choices.names]


def default_runs(choices: RunChoices) -> list[str]:
    """The two runs the page opens on: those sharing the most tasks; none when no two share one.

    Tasks are matched by identity, environment and question (``most_shared``), as the page
    compares them: two files of the same tasks, or an experiment's position against its
    parents' file, never two files that merely come first by name. A file's tasks are read
    from its first lines (``file_tasks``), once per version of the file.

    Example:
        >>> default_runs(RunChoices({}, {}, ()))
        []

    """
    tasks: dict[str, frozenset[TaskIdentity]] = {
        name: _file_tasks(str(path), stamp(str(path))) for name, path in choices.files.items()
    }
    for name in choices.positions:
        try:
            table = choices.run(name).table
        except ExperimentError:  # its parents went since the choices were made: not offered
            continue
        tasks[name] = frozenset(
            TaskIdentity(str(environment), str(prompt_hash))
            for environment, prompt_hash in zip(table[TASK[0]], table[TASK[1]], strict=True)
        )
    pair = most_shared(tasks)
    return [] if pair is None else list(pair)


@st.cache_data(max_entries=256, show_spinner=False)
def _file_tasks(path: str, version: tuple[int, int]) -> frozenset[TaskIdentity]:
    del version
    return file_tasks(path)
