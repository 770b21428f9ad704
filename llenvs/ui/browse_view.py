"""The Browse page's panels: file choice, filters, the trace list and the trace view.

Each function draws one panel with Streamlit and returns what the page needs next. Segment text
is always shown as text (a dataframe cell, ``st.code``), never as HTML.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path

import pandas as pd
import streamlit as st

from llenvs.traces import Trace
from llenvs.ui.browse_location import BrowseLocation, go_to, neighbour
from llenvs.ui.cached import cached_index, cached_search, cached_trace
from llenvs.ui.segment_chart import segment_figure, selected_segment
from llenvs.ui.segment_table import segment_table, styled_segments
from llenvs.ui.trace_filter import Success, TraceFilter
from llenvs.ui.trace_index import TraceIndex
from llenvs.ui.trace_source import trace_files, traces_dir
from llenvs.ui.whitespace import visible_whitespace

__all__ = [
    "LIST_LIMIT",
    "choose_file",
    "filters",
    "navigation",
    "segment_count",
    "show_skipped",
    "trace_list",
    "trace_view",
]

LIST_LIMIT = 1000
"""The most rows the trace list shows; filters narrow the rest."""

LIST_COLUMNS = ["line", "environment", "task", "model", "success", "reward", "prm_min", "segments"]


def choose_file(location: BrowseLocation) -> BrowseLocation | None:
    """The sidebar's file choice; ``location`` with its file set (the URL's, else the first).

    None when there is no trace file at all.

    Example:
        >>> choose_file(BrowseLocation(file="a.jsonl", line=3)).line
        3

    """
    files = [str(p) for p in trace_files(traces_dir())]
    if location.file is not None and location.file not in files:
        files.insert(0, location.file)
    if not files:
        return None
    current = location.file or files[0]
    picked = st.sidebar.selectbox(
        "Trace file", files, index=files.index(current), format_func=lambda p: Path(p).name
    )
    if picked != current:
        go_to(BrowseLocation(picked))
        st.rerun()
    return BrowseLocation(current, location.line, location.segment)


def load_index(path: str) -> TraceIndex:
    """The cached index of ``path`` (see ``TraceIndex``).

    Example:
        >>> load_index("/no/such.jsonl")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        FileNotFoundError: ...

    """
    return cached_index(path)


def segment_count(index: TraceIndex, line: int) -> int:
    """The number of segments of the trace on ``line`` (from the index, without loading it).

    Example:
        >>> segment_count(TraceIndex("x", pd.DataFrame({"line": [4], "segments": [7]}), ()), 4)
        7

    """
    found = index.table.loc[index.table["line"] == line, "segments"]
    return 0 if found.empty else int(found.iloc[0])


def show_skipped(index: TraceIndex) -> None:
    """A warning listing the lines of the file that were skipped, when there are any."""
    if not index.skipped:
        return
    st.warning(
        f"{len(index.skipped)} line(s) of {Path(index.path).name} could not be read "
        "and were skipped."
    )
    with st.expander("Skipped lines"):
        st.code("\n".join(str(s) for s in index.skipped[:200]), language=None)


def filters(index: TraceIndex) -> TraceFilter:
    """The sidebar's filters over ``index``'s traces."""
    table = index.table
    key = f"filter-{index.path}"
    bar = st.sidebar
    bar.header("Filters")
    environments = sorted(table["environment"].unique().tolist())
    chosen = bar.multiselect("Environment", environments, key=f"{key}-env")
    task_text = bar.text_input("Task index", key=f"{key}-task", placeholder="any")
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
        task=int(task_text) if task_text.strip().isdigit() else None,
        success=success or Success.ANY,
        reward_range=reward_range,
        prm_min=prm_min,
        lines=cached_search(index.path, text) if text.strip() else None,
    )


def trace_list(shown: pd.DataFrame, total: int, location: BrowseLocation) -> int | None:
    """The list of traces that pass the filters; the line of the trace to view, or None."""
    lines = shown["line"].tolist()
    line = location.line if location.line in set(lines) else (lines[0] if lines else None)
    st.caption(
        f"{len(shown):,} of {total:,} traces match"
        + (f" — showing the first {LIST_LIMIT:,}" if len(shown) > LIST_LIMIT else "")
    )
    if not lines:
        st.info("No trace matches these filters.")
        return None
    head = shown.head(LIST_LIMIT).assign(
        success=lambda t: t["success"].map({True: "yes", False: "no"}).fillna("—")
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
    )
    return line


def navigation(lines: list[int], location: BrowseLocation, segments: int) -> None:
    """Previous/next trace and segment buttons, with keyboard shortcuts (p, n, k, j)."""
    line = location.line if location.line in lines else (lines[0] if lines else None)
    here = BrowseLocation(location.file, line, min(location.segment, max(segments - 1, 0)))
    moves = [
        ("◀ trace", "p", BrowseLocation(here.file, neighbour(lines, line, -1), 0)),
        ("trace ▶", "n", BrowseLocation(here.file, neighbour(lines, line, 1), 0)),
        ("◀ segment", "k", BrowseLocation(here.file, line, max(here.segment - 1, 0))),
        (
            "segment ▶",
            "j",
            BrowseLocation(here.file, line, min(here.segment + 1, max(segments - 1, 0))),
        ),
    ]
    columns = st.columns(len(moves) + 1)
    for column, (label, shortcut, target) in zip(columns, moves, strict=False):
        column.button(
            label,
            key=f"nav-{shortcut}",
            shortcut=shortcut,
            on_click=go_to,
            args=(target,),
            help=f"shortcut: {shortcut}",
            width="stretch",
        )
    columns[-1].number_input(
        "segment",
        min_value=0,
        max_value=max(segments - 1, 0),
        value=here.segment,
        key=f"seg-input-{line}-{here.segment}",
        on_change=_typed_segment,
        args=(f"seg-input-{line}-{here.segment}", here),
        label_visibility="collapsed",
    )


def trace_view(index: TraceIndex, line: int, location: BrowseLocation) -> tuple[Trace, int]:
    """The trace on ``line``: header, segment rows beside the chart, the selected segment.

    Returns the trace and the selected segment (for the intervention panel).
    """
    trace = cached_trace(index, line)
    segment = min(location.segment, max(len(trace.segments) - 1, 0))
    here = BrowseLocation(location.file, line, segment)
    _header(trace, line)
    table = segment_table(trace)
    left, right = st.columns([3, 2])
    with left:
        key = f"segments-{line}-{segment}"
        left.dataframe(
            styled_segments(table, segment),
            hide_index=True,
            height=360,
            key=key,
            on_select=functools.partial(_pick_segment, key, here),
            selection_mode="single-row",
            selection_default={"selection": {"rows": [segment], "columns": []}}
            if len(table)
            else None,
            column_order=["#", "PRM", "reward", "cumulative", "label", "flags", "text"],
            column_config={"text": st.column_config.TextColumn("text", width="large")},
        )
    with right:
        chart_key = f"chart-{line}-{segment}"
        right.plotly_chart(
            segment_figure(table, segment),
            key=chart_key,
            on_select=functools.partial(_clicked_point, chart_key, here),
            selection_mode="points",
        )
    _segment_detail(trace, segment)
    return trace, segment


def _header(trace: Trace, line: int) -> None:
    task = trace.task
    verdict = {True: "succeeded", False: "failed", None: "no verdict"}[trace.success]
    st.subheader(f"{task.environment} · task {task.task_index} · line {line}")
    rewards = ", ".join(f"{k} {v:g}" for k, v in trace.final_rewards.items()) or "none"
    st.caption(
        f"{verdict} · final rewards: {rewards} · model: {trace.run.model or '—'} · "
        f"segmenter: {trace.run.segmenter or '—'} · {len(trace.segments)} segments"
    )
    with st.expander("Prompt"):
        st.text(task.prompt)
        if task.expected_answer is not None:
            st.text(f"expected answer: {task.expected_answer}")


def _segment_detail(trace: Trace, segment: int) -> None:
    if not trace.segments:
        st.info("This trace has no segments (an empty response).")
        return
    record = trace.segments[segment]
    rendered, raw = st.tabs([f"Segment {segment}", "Raw response (whitespace shown)"])
    with rendered:
        scores = ", ".join(f"{k} {v:.3f}" for k, v in record.prm_scores.items()) or "—"
        rewards = ", ".join(f"{k} {v:g}" for k, v in record.rewards.items()) or "—"
        st.caption(
            f"characters {record.start}–{record.end} · rewards: {rewards} · PRM: {scores} · "
            f"flags: {', '.join(sorted(f.value for f in record.flags))}"
            + (" · terminal" if record.terminal else "")
        )
        st.code(record.text, language=None, wrap_lines=True)
    with raw:
        st.code(visible_whitespace(trace.response), language=None, wrap_lines=True)


def _pick_trace(key: str, lines: list[int], location: BrowseLocation) -> None:
    rows = st.session_state[key]["selection"]["rows"]
    if rows:
        go_to(BrowseLocation(location.file, lines[rows[0]], 0))


def _pick_segment(key: str, here: BrowseLocation) -> None:
    rows = st.session_state[key]["selection"]["rows"]
    if rows:
        go_to(BrowseLocation(here.file, here.line, int(rows[0])))


def _clicked_point(key: str, here: BrowseLocation) -> None:
    picked = selected_segment(st.session_state[key])
    if picked is not None and not math.isnan(picked):
        go_to(BrowseLocation(here.file, here.line, picked))


def _typed_segment(key: str, here: BrowseLocation) -> None:
    go_to(BrowseLocation(here.file, here.line, int(st.session_state[key])))
