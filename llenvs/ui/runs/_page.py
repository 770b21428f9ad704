"""Compare runs: two or more trace files of the same tasks, task by task.

Each file is a run (a model, a segmenter, with or without an intervention). Tasks are matched by
identity, the environment and the question (the hash of the prompt), never by task index alone
(``llenvs.analysis``); a task a file holds twice counts once, by its first line. The
page shows each run's success rate with a 95% interval, mean final reward and lowest PRM; the
first run against each other one on the tasks they pair (the paired difference with its
paired-bootstrap interval and McNemar's exact p-value, then how many tasks were paired and why
the others were not); and the tasks where the runs disagree, each openable in Browse and as an
aligned diff of two runs' traces of it (``diff_pair``: the first run against one that got the
other verdict).

A run is a trace file, or an experiment's branches at one position (``llenvs.ui.runs``):
a ``Run`` holds its index table and the file its traces are in, so a disagreement opens the
trace (for a branch, beside its parent, at the intervened segment) where it is.

Example:
    >>> import pandas as pd
    >>> index = pd.DataFrame({"line": [1, 2, 3], "environment": ["e", "e", "e"],
    ...                       "task": [0, 1, 0], "prompt_hash": ["a", "b", "a"],
    ...                       "success": [True, None, False], "reward": [1.0, 0.0, 0.0],
    ...                       "prm_min": [0.5, 0.2, 0.1], "model": ["m", "m", "m"]})
    >>> by_task(index)[["line", "task", "success"]].values.tolist()
    [[1, 0, True], [2, 1, None]]

"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from llenvs.analysis import RunPairing, RunTask, compare_paired, pair_runs
from llenvs.traces.records import TaskIdentity
from llenvs.ui.runs._task_diff import diff_pair, show_task_diff
from llenvs.workbench import MISSING, count, short_name, success_rate

__all__ = [
    "Run",
    "browse_params",
    "by_task",
    "disagreements",
    "paired_table",
    "pairing",
    "run_summary",
    "show_runs",
    "verdict_headers",
]

TASK = ["environment", "prompt_hash"]
"""The columns that name a task: its identity (never its index alone)."""

RUN_HEADER = 24
"""The most characters of a run's name in a column header."""


@dataclass(frozen=True, eq=False)
class Run:
    """One run to compare: its name, its index table and the file its traces are in.

    Example:
        >>> Run("a", pd.DataFrame({"line": [1]}), Path("a.jsonl")).note
        ''

    """

    name: str
    """How the page names it."""
    table: pd.DataFrame
    """Its index table (``llenvs.workbench.files.SUMMARY_COLUMNS``; ``segment``: where a branch was
    made), one row per trace, several per task allowed (the first counts)."""
    file: Path
    """The trace file its lines are in (Browse opens them there)."""
    note: str = ""
    """What the run is, where that needs saying (an experiment's position)."""


def by_task(index: pd.DataFrame) -> pd.DataFrame:
    """A run's index table with one row per task (its first line), indexed by task identity.

    Example:
        >>> by_task(pd.DataFrame({"line": [], "environment": [], "prompt_hash": [],
        ...                       "task": [], "success": []}))
        Empty DataFrame
        Columns: [line, task, success]
        Index: []

    """
    first = index.drop_duplicates(TASK, keep="first")
    return first.set_index(TASK).sort_index()


def pairing(first: pd.DataFrame, second: pd.DataFrame) -> RunPairing:
    """The pairing of two runs' ``by_task`` tables (see ``llenvs.analysis``).

    Example:
        >>> a = by_task(pd.DataFrame({"environment": ["e"], "prompt_hash": ["x"], "task": [0],
        ...                           "success": [True]}))
        >>> b = by_task(pd.DataFrame({"environment": ["e"], "prompt_hash": ["y"], "task": [0],
        ...                           "success": [True]}))
        >>> pairing(a, b).index_clashes
        1

    """
    return pair_runs(_run_tasks(first), _run_tasks(second))


def _run_tasks(table: pd.DataFrame) -> list[RunTask]:
    tasks = []
    for (environment, prompt_hash), task, success in zip(
        table.index, table["task"], table["success"], strict=True
    ):
        verdict = None if success is None or pd.isna(success) else bool(success)
        tasks.append(RunTask(TaskIdentity(str(environment), str(prompt_hash)), int(task), verdict))
    return tasks


def run_summary(runs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per run: tasks, success rate with its 95% Wilson interval, reward, lowest PRM.

    Example:
        >>> t = pd.DataFrame({"success": [True, False, None], "reward": [1.0, 0.0, 0.0],
        ...                   "prm_min": [0.5, float("nan"), 0.25]})
        >>> run_summary({"a": t}).iloc[0].astype(str).tolist()
        ['a', '3', '2', '1/2 = 50% [9.5%, 90.5%]', '0.333', '0.375']

    """
    rows = []
    for name, table in runs.items():
        judged = table["success"].dropna().astype(bool)
        rate = success_rate(int(judged.sum()), len(judged))
        rows.append(
            {
                "run": name,
                "tasks": len(table),
                "with a verdict": len(judged),
                "success (95% interval)": rate,
                "mean final reward": _mean(table["reward"]),
                "mean lowest PRM": _mean(table["prm_min"]),
            }
        )
    return pd.DataFrame(rows)


def _mean(values: pd.Series) -> str:
    """The mean to 3 places, "–" when there is no value (Streamlit would draw "None")."""
    mean = values.mean()
    return "–" if pd.isna(mean) else f"{mean:.3g}"


def paired_table(runs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The first run against each other run, on the tasks they pair (see the module).

    The difference, its interval and McNemar's p come first (the columns a reader looks for),
    then the counts, then how many tasks were paired and why the others were not.

    Example:
        >>> a = pd.DataFrame({"success": [True, False, False], "task": [0, 1, 2]},
        ...                  index=pd.MultiIndex.from_product([["e"], ["h0", "h1", "h2"]]))
        >>> b = a.assign(success=[True, True, True])
        >>> row = paired_table({"a": a, "b": b}).iloc[0]
        >>> [str(row[k]) for k in ("against", "difference", "McNemar p", "paired")]
        ['b', '+66.7 points', '0.5', '3 tasks paired by question; every task is in both runs']

    """
    names = list(runs)
    base = runs[names[0]]
    rows = []
    for name in names[1:]:
        paired = pairing(base, runs[name])
        row: dict[str, object] = {"against": name}
        if paired.pairs:
            result = compare_paired(
                [one.success is True for one, _ in paired.pairs],
                [two.success is True for _, two in paired.pairs],
            )
            low, high = result.interval.low, result.interval.high
            row |= {
                "difference": f"{100 * result.difference:+.1f} points",
                "95% interval": f"[{100 * low:+.1f}, {100 * high:+.1f}]",
                "McNemar p": round(result.p_value, 4),
                f"only {names[0]}": result.only_first,
                "only it": result.only_second,
                f"{names[0]} solved": result.first_successes,
                "it solved": result.second_successes,
            }
        row["paired"] = paired.describe(names[0], name)
        rows.append(row)
    return pd.DataFrame(rows)


def disagreements(runs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The tasks every run judged but not all the same way: the task, each run's verdict and line.

    ``task`` is the first run's index of the task; the rows are in its order.

    Example:
        >>> keys = pd.MultiIndex.from_tuples([("e", "h0"), ("e", "h1")])
        >>> a = pd.DataFrame({"success": [True, False], "line": [1, 2], "task": [0, 1]}, index=keys)
        >>> b = pd.DataFrame({"success": [True, True], "line": [4, 3], "task": [5, 6]}, index=keys)
        >>> disagreements({"a": a, "b": b}).values.tolist()
        [['e', 1, False, 2, True, 3]]

    """
    verdicts = pd.concat(
        {name: t[["success", "line"]] for name, t in runs.items()}, axis=1, join="inner"
    )
    verdicts = verdicts.dropna(subset=[(name, "success") for name in runs])
    successes = verdicts.xs("success", axis=1, level=1).astype(bool)
    split = verdicts[successes.nunique(axis=1) > 1]
    split.columns = [f"{name} {what}" for name, what in split.columns]
    first = next(iter(runs.values()))
    tasks = first["task"].reindex(split.index)
    environments = [environment for environment, _ in split.index]
    split = split.reset_index(drop=True)
    split.insert(0, "task", tasks.to_numpy())
    split.insert(0, "environment", environments)
    return split.sort_values(["environment", "task"], kind="stable").reset_index(drop=True)


def show_runs(chosen: list[Run]) -> None:
    """Draw the comparison of the runs ``chosen`` (two or more; the first against the others)."""
    runs = {run.name: by_task(run.table) for run in chosen}
    for run in chosen:
        if run.note:
            st.caption(f"**{run.name}**: {run.note}")
    shared = set.intersection(*(set(t.index) for t in runs.values()))
    st.caption(
        f"{count(len(shared), 'task')} in every run, matched by environment and question (the "
        "hash of the prompt), never by task index alone."
    )
    st.dataframe(run_summary(runs), hide_index=True, placeholder=MISSING)
    st.subheader(f"{chosen[0].name} against the others")
    st.dataframe(paired_table(runs), hide_index=True, placeholder=MISSING)
    split = disagreements(runs)
    st.subheader(f"Tasks where they disagree ({len(split)})")
    judged = _judged_in_every_run(runs)
    if split.empty:
        if judged:
            st.caption(f"The runs agree on every task they share ({count(judged, 'task')}).")
        else:
            st.caption(
                "No task is in every run with a verdict, so there is nothing to compare (see "
                "why above)."
            )
        return
    st.dataframe(
        split, hide_index=True, placeholder=MISSING, column_config=verdict_headers(list(runs))
    )
    for row, (environment, task, *verdicts) in enumerate(split.itertuples(index=False, name=None)):
        columns = st.columns(len(chosen) + 2)
        columns[0].markdown(f"`{environment}` task {task}")
        for number, (column, run) in enumerate(zip(columns[1:-1], chosen, strict=True)):
            solved, line = bool(verdicts[2 * number]), verdicts[2 * number + 1]
            label = f"{run.name}: {'solved' if solved else 'failed'}"
            if pd.isna(line):
                column.caption(f"{label} (its trace is not in {run.file.name})")
                continue
            column.page_link(
                "pages/browse.py",
                label=f"{label} (line {int(line)})",
                query_params=browse_params(run, int(line)),
            )
        pair = diff_pair(chosen, verdicts)
        if pair and columns[-1].toggle("Aligned diff", key=f"runs-diff-{row}-{environment}-{task}"):
            show_task_diff(pair)


def verdict_headers(names: list[str]) -> dict[str, Any]:
    """The disagreements' column headers: each run's name cut in the middle, its end kept.

    A header is cut at its column's width, at the end: two positions of one experiment
    (``… @ position 0.25``, ``… @ position 0.5``) would read alike. The whole name is the
    header's tooltip.

    Example:
        >>> headers = verdict_headers(["products-smollm2-misleading-hint @ position 0.25"])
        >>> headers["products-smollm2-misleading-hint @ position 0.25 line"]["label"]
        'products-sm…osition 0.25 line'

    """
    return {
        f"{name} {what}": st.column_config.Column(
            f"{short_name(name, RUN_HEADER)} {what}", help=f"{name}: {what}"
        )
        for name in names
        for what in ("success", "line")
    }


def browse_params(run: Run, line: int) -> dict[str, str]:
    """The Browse query of the trace on ``line`` of a run (a branch: at its intervened segment).

    Example:
        >>> run = Run("x", pd.DataFrame({"line": [4], "segment": [2]}), Path("b.jsonl"))
        >>> browse_params(run, 4)
        {'file': 'b.jsonl', 'trace': '4', 'segment': '2'}

    """
    params = {"file": str(run.file), "trace": str(line)}
    if "segment" in run.table.columns:
        at = run.table.loc[run.table["line"] == line, "segment"]
        if not at.empty:
            params["segment"] = str(int(at.iloc[0]))
    return params


def _judged_in_every_run(runs: dict[str, pd.DataFrame]) -> int:
    """How many tasks every run holds with a verdict."""
    verdicts = pd.concat({name: t["success"] for name, t in runs.items()}, axis=1, join="inner")
    return len(verdicts.dropna())
