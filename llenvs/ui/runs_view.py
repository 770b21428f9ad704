"""Compare runs: two or more trace files of the same tasks, task by task.

Each file is a run (a model, a segmenter, with or without an intervention). Tasks are matched by
environment and task index; a task a file holds twice counts once, by its first line. The page
shows each run's success rate with a 95% interval, mean final reward and lowest PRM; the first
run against each other one on the tasks they share (the paired difference with its
paired-bootstrap interval and McNemar's exact p-value); and the tasks where the runs disagree,
each openable in Browse.

Example:
    >>> import pandas as pd
    >>> index = pd.DataFrame({"line": [1, 2, 3], "environment": ["e", "e", "e"],
    ...                       "task": [0, 1, 0], "success": [True, None, False],
    ...                       "reward": [1.0, 0.0, 0.0], "prm_min": [0.5, 0.2, 0.1],
    ...                       "model": ["m", "m", "m"]})
    >>> by_task(index)[["line", "success"]].values.tolist()
    [[1, True], [2, None]]

"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from llenvs.analysis.paired_runs import compare_paired
from llenvs.ui.cached import cached_index
from llenvs.ui.wording import count, success_rate

__all__ = ["by_task", "disagreements", "paired_table", "run_summary", "show_runs"]

TASK = ["environment", "task"]
"""The columns that name a task."""


def by_task(index: pd.DataFrame) -> pd.DataFrame:
    """A run's index table with one row per task (its first line), indexed by task.

    Example:
        >>> by_task(pd.DataFrame({"line": [], "environment": [], "task": [], "success": []}))
        Empty DataFrame
        Columns: [line, success]
        Index: []

    """
    first = index.drop_duplicates(TASK, keep="first")
    return first.set_index(TASK).sort_index()


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
    """The first run against each other run, on the tasks both judged (see the module).

    Example:
        >>> a = pd.DataFrame({"success": [True, False, False]}, index=[0, 1, 2])
        >>> b = pd.DataFrame({"success": [True, True, True]}, index=[0, 1, 2])
        >>> row = paired_table({"a": a, "b": b}).iloc[0]
        >>> [str(row[k]) for k in ("against", "shared tasks", "difference", "McNemar p")]
        ['b', '3', '+66.7 points', '0.5']

    """
    names = list(runs)
    base = runs[names[0]]["success"]
    rows = []
    for name in names[1:]:
        both = pd.concat([base, runs[name]["success"]], axis=1, join="inner").dropna()
        if both.empty:
            rows.append({"against": name, "shared tasks": 0})
            continue
        result = compare_paired(
            both.iloc[:, 0].astype(bool).tolist(), both.iloc[:, 1].astype(bool).tolist()
        )
        rows.append(
            {
                "against": name,
                "shared tasks": result.tasks,
                f"{names[0]} solved": result.first_successes,
                "it solved": result.second_successes,
                f"only {names[0]}": result.only_first,
                "only it": result.only_second,
                "difference": f"{100 * result.difference:+.1f} points",
                "95% interval (paired bootstrap)": (
                    f"[{100 * result.interval.low:+.1f}, {100 * result.interval.high:+.1f}]"
                ),
                "McNemar p": round(result.p_value, 4),
            }
        )
    return pd.DataFrame(rows)


def disagreements(runs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The tasks every run judged but not all the same way: each run's verdict and line.

    Example:
        >>> a = pd.DataFrame({"success": [True, False], "line": [1, 2]}, index=[0, 1])
        >>> b = pd.DataFrame({"success": [True, True], "line": [4, 3]}, index=[0, 1])
        >>> disagreements({"a": a, "b": b}).values.tolist()
        [[1, False, 2, True, 3]]

    """
    verdicts = pd.concat(
        {name: t[["success", "line"]] for name, t in runs.items()}, axis=1, join="inner"
    ).dropna()
    successes = verdicts.xs("success", axis=1, level=1).astype(bool)
    split = verdicts[successes.nunique(axis=1) > 1]
    split.columns = [f"{name} {what}" for name, what in split.columns]
    return split.reset_index()


def show_runs(paths: list[Path]) -> None:
    """Draw the comparison of the trace files ``paths`` (two or more)."""
    runs = {path.stem: by_task(cached_index(str(path)).table) for path in paths}
    shared = set.intersection(*(set(t.index) for t in runs.values()))
    st.caption(f"{count(len(shared), 'task')} in every run, matched by environment and task index.")
    st.dataframe(run_summary(runs), hide_index=True)
    st.subheader(f"{paths[0].stem} against the others")
    st.dataframe(paired_table(runs), hide_index=True)
    split = disagreements(runs)
    st.subheader(f"Tasks where they disagree ({len(split)})")
    if split.empty:
        st.caption("The runs agree on every shared task.")
        return
    st.dataframe(split, hide_index=True)
    for environment, task, *verdicts in split.itertuples(index=False, name=None):
        columns = st.columns(len(paths) + 1)
        columns[0].markdown(f"`{environment}` task {task}")
        for number, (column, path) in enumerate(zip(columns[1:], paths, strict=True)):
            solved, line = bool(verdicts[2 * number]), int(verdicts[2 * number + 1])
            column.page_link(
                "pages/browse.py",
                label=f"{path.stem}: {'solved' if solved else 'failed'} (line {line})",
                query_params={"file": str(path), "trace": str(line)},
            )
