"""The Browse page's panels: file choice, navigation and the trace view.

The trace list and its filters are ``trace_list_view``'s; the step values panel below the
segment table is ``step_values_view``'s; the selected segment's text and the raw response
around it are ``segment_detail``'s.

Each function draws one panel with Streamlit and returns what the page needs next. Segment text
is always shown as text (a dataframe cell, ``text_block``), never as HTML.

Big traces stay quick: the segment table shows a window of rows (``segment_rows_view``: it
follows the selection, and filters by function tag when segments carry them), and a segment or
response longer than ``TEXT_LIMIT`` characters shows a window of its text beside a button that
downloads all of it (``segment_detail``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import streamlit as st

from llenvs.core import Bound
from llenvs.evaluation.branching import PRM_UNSCORED
from llenvs.traces import Trace
from llenvs.ui.browse._label_mode import (
    label_mode,
    label_mode_switch,
    labeller_name,
    labelling_panel,
)
from llenvs.ui.browse._rerun import rerun_button
from llenvs.ui.browse._segment_detail import segment_detail
from llenvs.ui.browse._segment_panel import segment_chart, segment_rows_panel, segment_rows_table
from llenvs.ui.browse._segment_rows import chosen_tags, step_among
from llenvs.ui.browse._step_values import step_values_panel
from llenvs.ui.common import (
    LOGGER,
    cached_index,
    cached_trace,
    go_to,
    is_internal_error,
    key_queue,
    number_box,
    read_location,
    read_number,
    trace_file_box,
)
from llenvs.workbench import (
    BrowseLocation,
    count,
    describe_branch,
    neighbour,
    prm_summary,
    run_summary,
)
from llenvs.workbench.browse import label_values, tagged_segments
from llenvs.workbench.files import TraceIndex, browse_default, trace_files, traces_dir

__all__ = [
    "choose_file",
    "load_index",
    "navigation",
    "segment_count",
    "stepped_segments",
    "trace_guard",
    "trace_view",
]


def choose_file(location: BrowseLocation) -> BrowseLocation | None:
    """The sidebar's file choice; ``location`` with its file set.

    The file is the URL's (a link, or a pick in the sidebar, which puts it there); without
    one, the view the traces folder declares (``browse_default``: the sample folder's Thought
    Anchors trace, at its most telling step), else the folder's first file at its first trace.
    None when there is no trace file at all.

    Example:
        >>> choose_file(BrowseLocation(file="a.jsonl", line=3)).line
        3

    """
    about = ""
    if location.file is None:
        location, about = _declared_view(location)
    files = [str(p) for p in trace_files(traces_dir())]
    if location.file is not None and location.file not in files:
        files.insert(0, location.file)
    if not files:
        return None
    current = location.file or files[0]
    picked = trace_file_box(files, current)
    if picked != current:
        go_to(BrowseLocation(picked))
        st.rerun()
    if about:
        st.sidebar.caption(about)
    return BrowseLocation(current, location.line, location.segment)


def _declared_view(location: BrowseLocation) -> tuple[BrowseLocation, str]:
    """``location`` (which names no file) in the view the traces folder declares, and why.

    A trace the URL gives (and its segment) is kept; a declaration that cannot be followed is
    said in the sidebar, and the folder's first file opens instead.
    """
    try:
        declared = browse_default(traces_dir())
    except ValueError as error:
        st.sidebar.warning(f"{error}. Browse opens the first trace file instead.")
        return location, ""
    if declared is None:
        return location, ""
    view = declared.location
    if location.line is not None:
        view = BrowseLocation(view.file, location.line, location.segment)
    return view, declared.about


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
        >>> import pandas as pd
        >>> segment_count(TraceIndex("x", pd.DataFrame({"line": [4], "segments": [7]}), ()), 4)
        7

    """
    found = index.table.loc[index.table["line"] == line, "segments"]
    return 0 if found.empty else int(found.iloc[0])


def navigation(lines: list[int], location: BrowseLocation, index: TraceIndex) -> None:
    """Previous/next trace and segment buttons, with keyboard shortcuts (p, n, k, j).

    ``lines``: the traces the list shows. The segment keys step among the segments the
    segment table shows: every one, or those its tag filter lets through (``stepped_segments``).
    In label mode the segment moves are label mode's own (``labelling_view``: they move
    inside its fragment), so only the trace moves are drawn here.
    """
    line = location.line if location.line in lines else (lines[0] if lines else None)
    segments = 0 if line is None else segment_count(index, line)
    here = BrowseLocation(location.file, line, min(location.segment, max(segments - 1, 0)))
    moves = [("◀ trace", "p"), ("trace ▶", "n")]
    labelling = label_mode()
    if not labelling:
        moves += [("◀ segment", "k"), ("segment ▶", "j")]
    keys = "".join(shortcut for _, shortcut in moves)
    key_queue(f"nav-keys-{keys}", keys, here, functools.partial(_nav_key, lines, index))
    columns = st.columns(5)  # four moves and the segment box; label mode leaves two empty
    for column, (label, shortcut) in zip(columns, moves, strict=False):
        column.button(
            label,
            key=f"nav-{shortcut}",
            on_click=go_to,
            args=(_moved(lines, index, shortcut, here),),
            help=f"shortcut: {shortcut}",
            width="stretch",
        )
    if labelling:
        return
    bound = Bound("segment", 0, max(segments - 1, 0), "the trace's segments")
    number_box(  # a number out of range moves nothing, and the box says why
        "segment",
        bound,
        here.segment,
        f"seg-input-{line}-{here.segment}",
        where=columns[-1],
        on_change=functools.partial(
            _typed_segment, f"seg-input-{line}-{here.segment}", here, bound
        ),
        label_visibility="collapsed",
    )


def _nav_key(lines: list[int], index: TraceIndex, key: str, here: BrowseLocation) -> BrowseLocation:
    """One press of ``p``/``n``/``k``/``j`` from ``here``: the page moved; where it went."""
    target = _moved(lines, index, key, here)
    go_to(target)
    return target


def _moved(lines: list[int], index: TraceIndex, key: str, here: BrowseLocation) -> BrowseLocation:
    """Where ``p``/``n`` (trace) or ``k``/``j`` (segment) moves from ``here`` (its button too)."""
    line = here.line if here.line in lines else (lines[0] if lines else None)
    if key in "pn":
        return BrowseLocation(here.file, neighbour(lines, line, 1 if key == "n" else -1), 0)
    if line is None:
        return here
    segment = min(here.segment, max(segment_count(index, line) - 1, 0))
    step = 1 if key == "j" else -1
    return BrowseLocation(here.file, line, step_among(stepped_segments(index, line), segment, step))


def stepped_segments(index: TraceIndex, line: int) -> Sequence[int]:
    """The segments ``j``/``k`` step among on ``line``: the ones its segment table shows.

    Every segment, or, with the tag filter on (``chosen_tags``), those carrying a chosen tag.
    The trace is read only then (the filter drew it before), so a trace that does not load
    still leaves the trace keys to move away from it.

    Example:
        >>> import pandas as pd
        >>> stepped_segments(TraceIndex("x", pd.DataFrame(
        ...     {"line": [4], "segments": [3], "trace_id": ["t"]}), ()), 4)
        range(0, 3)

    """
    rows = index.table.loc[index.table["line"] == line, "trace_id"]
    tags = chosen_tags(str(rows.iloc[0])) if not rows.empty else []
    if not tags:
        return range(segment_count(index, line))
    return tagged_segments(cached_trace(index, line), tags)


def trace_view(index: TraceIndex, line: int, location: BrowseLocation) -> tuple[Trace, int | None]:
    """The trace on ``line``: header, segment rows beside the chart, step values, the segment.

    A trace of more than ``WINDOW`` segments shows ``WINDOW`` rows from just above the selected
    one; the ``#`` column is the true segment index and a click on a row selects that segment.
    The chart shows every segment. The label mode switch (off by default) turns the rows, the
    chart and the selected step into label mode's fragment (``labelling_view``).

    Returns the trace and the selected segment (for the intervention panel); None for the
    segment in label mode, whose keys move the selection without running the page.
    """
    trace = cached_trace(index, line)
    segment = min(location.segment, max(len(trace.segments) - 1, 0))
    here = BrowseLocation(location.file, line, segment)
    _header(trace, line)
    rerun_button(index.path, trace)
    if label_mode_switch():
        if read_location() != here:
            go_to(here)  # label mode's fragment reads the selection from the URL
        labelling_panel(index.path, line, trace)
        labeller = labeller_name() or None
        labels = label_values(segment_rows_table(index.path, line, trace, labeller))
        step_values_panel(index.path, trace, here, labels)
        return trace, None
    table = segment_rows_table(index.path, line, trace)
    # the rows and the segment's text are sent first; the charts, slowest to draw, fill
    # their places after them
    window, chart = segment_rows_panel(trace, table, here)
    values = st.container()
    segment_detail(trace, here)
    segment_chart(chart, table, here, window)
    with values:
        step_values_panel(index.path, trace, here, label_values(table))
    return trace, segment


@contextmanager
def trace_guard(path: str, line: int) -> Iterator[None]:
    """Draw the trace on ``line`` of ``path`` inside; an error there is one message, naming both.

    The rest of the page (the list, the navigation, the other traces) keeps working. The
    message is the library's own when it names the line already (a ``TraceFormatError`` from
    reading it: what ``llenvs analyze`` says); else ``file, line N: could not show this trace``
    and the error. An internal error type is also logged, as ``page_guard`` logs it.

    Example:
        >>> with trace_guard("runs.jsonl", 3):  # outside a running app, st.error only logs
        ...     raise ValueError("Unable to convert dataframe to Arrow table")

    """
    where = f"{path}, line {line}"
    try:
        yield
    except Exception as error:  # any error of one trace's drawing stays a message (invariant 6)
        if is_internal_error(error):
            LOGGER.error("an internal error reached the page: %r", error, exc_info=error)
        message = str(error)
        if not message.startswith(f"{where}: "):
            message = f"{where}: could not show this trace: {type(error).__name__}: {message}"
        st.error(message, icon=":material/error:")


def _header(trace: Trace, line: int) -> None:
    task = trace.task
    verdict = {True: "succeeded", False: "failed", None: "no verdict"}[trace.success]
    st.subheader(f"{task.environment} · task {task.task_index} · line {line}")
    rewards = ", ".join(f"{k} {v:g}" for k, v in trace.final_rewards.items()) or "none"
    st.caption(
        f"{verdict} · final rewards: {rewards} · {count(len(trace.segments), 'segment')} · "
        f"{run_summary(trace.run)}"
    )
    st.caption(prm_summary(trace))
    unscored = trace.metadata.get(PRM_UNSCORED)
    if unscored:
        st.caption(f"Not scored by its parent's PRM: {unscored}")
    if trace.parent is not None:
        st.caption(
            f"A branch of trace {trace.parent.parent_id[:8]}: {describe_branch(trace.parent)}"
        )
    with st.expander("Prompt"):
        st.text(task.prompt)
        if task.expected_answer is not None:
            st.text(f"expected answer: {task.expected_answer}")


def _typed_segment(key: str, here: BrowseLocation, bound: Bound) -> None:
    """Go to the segment typed in the box ``key``; stay where it refuses (it says why)."""
    segment = read_number(str(st.session_state[key]), bound).value
    if segment is not None:
        go_to(BrowseLocation(here.file, here.line, segment))
