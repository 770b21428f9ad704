"""The Browse page's trace list: what the file's reading skipped, the sidebar filters, the list.

Each function draws one panel with Streamlit and returns what the page needs next.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pandas as pd
import streamlit as st

from llenvs.core import Bound
from llenvs.traces import no_trace_reason, skipped_summary
from llenvs.ui.common import cached_branch_counts, cached_search, go_to, read_number
from llenvs.workbench import MISSING, BrowseLocation
from llenvs.workbench.browse import Success, TraceFilter
from llenvs.workbench.files import SUMMARY_COLUMNS, TraceIndex

__all__ = ["LIST_LIMIT", "filters", "show_skipped", "trace_list"]

LIST_LIMIT = 1000
"""The most rows the trace list shows; filters narrow the rest."""

LIST_COLUMNS = [*SUMMARY_COLUMNS, "branches"]
"""The trace list's columns: a trace's summary and how many branches it has."""

_TASK = Bound("Task index", 0, 2**63 - 1, "a task's place in its dataset")


def show_skipped(index: TraceIndex) -> None:
    """What reading the file skipped, said once, as ``llenvs analyze`` says it.

    A file without a trace says why (it is empty, or the first of its unreadable lines and
    why); a file with traces and skipped lines, how many and the first; the skipped lines are
    listed in an expander below.
    """
    name = Path(index.path).name
    if index.count == 0:
        st.warning(no_trace_reason(index.path, index.skipped, name))
    elif index.skipped:
        st.warning(skipped_summary(name, index.skipped))
    if not index.skipped:
        return
    with st.expander("Skipped lines"):
        st.code("\n".join(str(s) for s in index.skipped[:200]), language=None)


def _task(text: str) -> int | None:
    """The task the Task index box filters on: None when it is empty, or refused (said why)."""
    if not text.strip():
        return None
    entry = read_number(text, _TASK, name="Task index")
    if entry.problem is not None:
        st.sidebar.error(f"{entry.problem}: not filtered by task", icon=":material/error:")
    return entry.value


def filters(index: TraceIndex) -> TraceFilter:
    """The sidebar's filters over ``index``'s traces (none for a file without a trace)."""
    if index.count == 0:
        return TraceFilter()
    table = index.table
    key = f"filter-{index.path}"
    bar = st.sidebar
    bar.header("Filters")
    environments = sorted(table["environment"].unique().tolist())
    chosen = bar.multiselect("Environment", environments, key=f"{key}-env")
    task_text = bar.text_input(
        "Task index", key=f"{key}-task", placeholder="any", help="An integer ≥ 0; empty: any task"
    )
    success = bar.radio(
        "Success", list(Success), format_func=lambda s: s.value, key=f"{key}-ok", horizontal=True
    )
    rewards = table["reward"].dropna()
    reward_range = None
    if not rewards.empty and rewards.min() < rewards.max():
        low, high = float(rewards.min()), float(rewards.max())
        picked = bar.slider("Final reward", low, high, (low, high), key=f"{key}-reward")
        reward_range = None if picked == (low, high) else (float(picked[0]), float(picked[1]))
    prm_min = None
    if table["prm_min"].notna().any():
        value = bar.slider(
            "PRM minimum (every step at least)", 0.0, 1.0, 0.0, 0.05, key=f"{key}-prm"
        )
        prm_min = value if value > 0 else None
    text = bar.text_input("Text search", key=f"{key}-text", placeholder="in response or prompt")
    return TraceFilter(
        environments=tuple(chosen),
        task=_task(task_text),
        success=success or Success.ANY,
        reward_range=reward_range,
        prm_min=prm_min,
        lines=cached_search(index.path, text) if text.strip() else None,
    )


def trace_list(shown: pd.DataFrame, total: int, location: BrowseLocation) -> int | None:
    """The list of traces that pass the filters; the line of the trace to view, or None.

    ``total``: the file's traces; with none, nothing is drawn (``show_skipped`` said why).
    """
    if total == 0:
        return None
    lines = shown["line"].tolist()
    line = location.line if location.line in set(lines) else (lines[0] if lines else None)
    st.caption(
        f"{len(shown):,} of {total:,} traces match"
        + (f" — showing the first {LIST_LIMIT:,}" if len(shown) > LIST_LIMIT else "")
    )
    if not lines:
        st.info("No trace matches these filters.")
        return None
    counts = cached_branch_counts(location.file or "")
    head = shown.head(LIST_LIMIT).assign(
        success=lambda t: t["success"].map({True: "yes", False: "no"}).fillna("—"),
        branches=lambda t: t["trace_id"].map(counts).fillna(0).astype(int),
    )
    key = f"traces-{location.file}-{line}"
    position = head["line"].tolist().index(line) if line in set(head["line"]) else None
    st.dataframe(
        head[[*LIST_COLUMNS, "preview"]],
        hide_index=True,
        height=220,
        key=key,
        on_select=functools.partial(_pick_trace, key, head["line"].tolist(), location),
        selection_mode="single-row",
        selection_default=None
        if position is None
        else {"selection": {"rows": [position], "columns": []}},
        column_config={
            "reward": st.column_config.NumberColumn("final reward", format="%.3g"),
            "prm_min": st.column_config.NumberColumn("lowest PRM", format="%.3f"),
            "preview": st.column_config.TextColumn("response", width="large"),
        },
        placeholder=MISSING,
    )
    return line


def _pick_trace(key: str, lines: list[int], location: BrowseLocation) -> None:
    rows = st.session_state[key]["selection"]["rows"]
    if rows:
        go_to(BrowseLocation(location.file, lines[rows[0]], 0))
