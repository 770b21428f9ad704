"""A task the runs disagree on, opened as an aligned diff of two runs' traces of it.

The first run's trace against the first other run's that got the other verdict, step by step
(``llenvs.workbench.aligned_view``, the table Browse's branch comparison draws), under what
each came to. Of an experiment's position against its parents, the branch is shown as one:
the kept prefix folded, the intervention marked.

Example:
    >>> from pathlib import Path
    >>> from llenvs.ui.runs._page import Run
    >>> runs = [Run(name, pd.DataFrame(), Path(f"{name}.jsonl")) for name in "xyz"]
    >>> [(run.name, line) for run, line in diff_pair(runs, [True, 1, True, 2, False, 3])]
    [('x', 1), ('z', 3)]

"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st

from llenvs.ui.common import cached_index, cached_trace, shows_errors
from llenvs.workbench import MISSING, aligned_view, outcome_table
from llenvs.workbench.search import facts_of

if TYPE_CHECKING:  # the page imports this module: the run's type only, to read its fields
    from llenvs.ui.runs._page import Run

__all__ = ["diff_pair", "show_task_diff"]

NAMES = ("a", "b")
"""The two sides' names in the table (a run's name is too long for a column's header)."""


def diff_pair(runs: Sequence[Run], verdicts: Sequence[Any]) -> list[tuple[Run, int]]:
    """The two runs, with their lines, that a disagreement opens as an aligned diff.

    The first run and the first other run that got the other verdict; none where either of the
    two has no line. ``verdicts`` is a ``disagreements`` row past its task: each run's success,
    then its line.

    Example:
        >>> from pathlib import Path
        >>> from llenvs.ui.runs._page import Run
        >>> runs = [Run(name, pd.DataFrame(), Path(f"{name}.jsonl")) for name in "xy"]
        >>> diff_pair(runs, [True, float("nan"), False, 3])
        []

    """
    lines = [verdicts[2 * n + 1] for n in range(len(runs))]
    solved = [bool(verdicts[2 * n]) for n in range(len(runs))]
    other = next((n for n in range(1, len(runs)) if solved[n] != solved[0]), None)
    if other is None or any(pd.isna(lines[n]) for n in (0, other)):
        return []
    return [(runs[n], int(lines[n])) for n in (0, other)]


def show_task_diff(pair: Sequence[tuple[Run, int]]) -> None:
    """Draw the two traces of ``pair`` (``diff_pair``) aligned, their outcomes above."""
    with shows_errors("The aligned diff could not be drawn"):
        (run_a, line_a), (run_b, line_b) = pair
        a = cached_trace(cached_index(str(run_a.file)), line_a)
        b = cached_trace(cached_index(str(run_b.file)), line_b)
        st.caption(
            f"a: **{run_a.name}**, line {line_a} of {run_a.file.name} · b: **{run_b.name}**, "
            f"line {line_b} of {run_b.file.name}"
        )
        st.dataframe(outcome_table(a, b, NAMES), hide_index=True, placeholder=MISSING)
        facts = (facts_of(run_a.file, a), facts_of(run_b.file, b))  # labels, step values
        view = aligned_view(a, b, NAMES, facts=facts)  # by words: no MiniLM unasked
        st.caption(f"Aligned step by step: {view.caption}.")
        wide = {
            name: st.column_config.TextColumn(name, width="large") for name in view.text_columns
        }
        st.dataframe(view.rows, hide_index=True, column_config=wide, placeholder=MISSING)
