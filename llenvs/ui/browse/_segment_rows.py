"""The trace view's segment rows: the tag filter, the window of rows, a click that selects.

The table shows at most ``WINDOW`` rows, from just above the selected segment (it follows the
selection: j/k, the URL's ``?segment=``, a click). The ``◀``/``▶`` buttons page the rows a
window's length without moving the selection; the next move of the selection brings the rows
back to it.
When the segments carry function tags (an imported Thought Anchors trace), a ``tags`` column
coloured by tag is shown, and a filter over the tags present (each with its count) narrows the
rows to the segments carrying any chosen tag; the window is then taken among those rows. The
``#`` column is always the true segment index, and a click on a row selects that segment.
With a filter on, ``j``/``k`` step among the rows it shows (``chosen_tags``, ``step_among``).
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from llenvs.traces import Trace
from llenvs.ui.common import go_to
from llenvs.workbench import MISSING, BrowseLocation
from llenvs.workbench.browse import (
    SELECTION_MODES,
    WINDOW,
    picked_row,
    segment_window,
    styled_segments,
    tag_counts,
    tagged_segments,
)

__all__ = ["TAG_FILTER", "chosen_tags", "segment_rows", "shown_segments", "step_among"]

TAG_FILTER = "tag-filter"
"""The tag filter's key, followed by ``-`` and the trace id (each trace keeps its own)."""

_PAGED = "segment-rows-paged"
"""Session key: ((file, line, selected segment, tags), first row's position) of a window the
buttons paged to; it holds while that segment stays selected, then the rows follow again."""

_CLICKS = "segment-row-clicks"
"""How many rows were clicked in this session: part of a kept grid's key (``segment_rows``)."""

COLUMNS = ["#", "PRM", "reward", "cumulative", "label", "flags", "text"]
"""The table's columns, in order (``tags`` goes before ``text`` when segments carry tags)."""

NARROW = {
    "#": 56,
    "PRM": 60,
    "reward": 64,
    "cumulative": 84,
    "label": 52,
    "flags": 84,
    "tags": 160,
}
"""The pixel widths of the columns before ``text``: what their values need."""

TEXT_WIDTH = 440
"""The ``text`` column's pixel width. With the others' it fills the 1040 pixels the rows have
at 1500 px beside the sidebar; a wider row stretches every column in proportion, the text's most,
and a narrower one scrolls."""


def shown_segments(shown: list[int], selected: int, size: int = WINDOW) -> list[int]:
    """The segments of ``shown`` (true indices, in order) the table draws when ``selected`` is.

    At most ``size``: a window from just above ``selected``, or above the first shown segment
    after it when ``selected`` is not shown (a filter left it out).

    Example:
        >>> shown_segments(list(range(0, 1000, 2)), 501, size=5)
        [494, 496, 498, 500, 502]
        >>> shown_segments([3, 8], 0), shown_segments([], 4)
        ([3, 8], [])

    """
    position = min(bisect.bisect_left(shown, selected), max(len(shown) - 1, 0))
    window = segment_window(position, len(shown), size)
    return shown[window.start : window.stop]


def chosen_tags(trace_id: str) -> list[str]:
    """The tags chosen in the tag filter of trace ``trace_id``; none when it shows every row.

    Read from the session, so the keys drawn above the table (``j``/``k``) follow the filter
    as it is now, before the table draws it again.

    Example:
        >>> chosen_tags("no-such-trace")
        []

    """
    return [str(tag) for tag in st.session_state.get(f"{TAG_FILTER}-{trace_id}") or []]


def step_among(shown: Sequence[int], segment: int, step: int) -> int:
    """The segment ``j`` (``step`` 1) or ``k`` (-1) selects from ``segment``, among ``shown``.

    ``shown`` are the true indices of the rows the table shows, in order: the next one after
    ``segment`` (or the last one before it), whether or not ``segment`` itself is shown (a
    filter may leave it out); ``segment`` when there is none that way.

    Example:
        >>> step_among([2, 5, 9], 5, 1), step_among([2, 5, 9], 5, -1), step_among([2, 5, 9], 6, -1)
        (9, 2, 5)
        >>> step_among([2, 5, 9], 9, 1), step_among([2, 5, 9], 0, 1), step_among([], 4, 1)
        (9, 2, 4)

    """
    if step > 0:
        after = bisect.bisect_right(shown, segment)
        return shown[after] if after < len(shown) else segment
    before = bisect.bisect_left(shown, segment)
    return shown[before - 1] if before > 0 else segment


def segment_rows(
    trace: Trace,
    table: pd.DataFrame,
    here: BrowseLocation,
    size: int = WINDOW,
    key: str | None = None,
) -> range:
    """Draw the segment rows of ``trace`` (``table``: its ``segment_table``), ``here`` selected.

    At most ``size`` rows at once (label mode draws fewer: it redraws them at every key).
    Returns the span of segments the table shows, for the chart to shade.

    ``key``: None draws a new grid for each selected segment, opened with its row selected.
    Label mode names one, and the grid is then kept, its rows updated in place, as long as
    the selected row stays at the same place among the rows (mid-trace it always does: the
    window follows the selection), which is much quicker in the browser than a new grid; a
    click on a row draws a new one, so the grid's own selection never points at another row.
    """
    counts = tag_counts(trace)
    chosen = _tag_filter(trace, counts) if counts else []
    shown = tagged_segments(trace, chosen)
    paged = _paged_start(here, chosen, len(shown), size)
    rows = shown_segments(shown, here.segment, size) if paged is None else shown[paged:][:size]
    if chosen:
        st.caption(
            f"{len(shown):,} of {len(table):,} segments tagged {' or '.join(chosen)}"
            + ("" if here.segment in shown else f"; segment {here.segment} is not among them")
            + "."
        )
    if len(rows) < len(shown):
        _window_moves(rows, shown, here, chosen, size)
    selected = rows.index(here.segment) if here.segment in rows else None
    if key is None:
        key = f"segments-{here.line}-{here.segment}-{'-'.join(chosen)}-{rows[0] if rows else 0}"
    else:
        clicks = st.session_state.get(_CLICKS, 0)
        key = f"{key}-{here.line}-{selected}-{'-'.join(chosen)}-{clicks}"
    st.dataframe(
        styled_segments(table.iloc[rows], here.segment),
        hide_index=True,
        height=360,
        key=key,
        on_select=functools.partial(_pick_segment, key, here, rows),
        selection_mode=list(SELECTION_MODES),  # a click on a row's text selects it too
        selection_default={"selection": {"rows": [selected], "columns": []}}
        if selected is not None
        else None,
        column_order=COLUMNS[:-1] + (["tags"] if counts else []) + COLUMNS[-1:],
        column_config={
            **{name: st.column_config.Column(width=width) for name, width in NARROW.items()},
            "text": st.column_config.TextColumn("text", width=TEXT_WIDTH),
            "tags": st.column_config.TextColumn(
                "tags",
                width=NARROW["tags"],
                help="Function tags (Thought Anchors); coloured by the first one",
            ),
        },
        placeholder=MISSING,
    )
    return range(rows[0], rows[-1] + 1) if rows else range(0)


def _tag_filter(trace: Trace, counts: dict[str, int]) -> list[str]:
    """The tag filter (the tags present, each with its count); the tags chosen, in its order."""
    chosen = st.multiselect(
        "Function tags",
        list(counts),
        format_func=lambda tag: f"{tag} ({counts[tag]})",
        key=f"{TAG_FILTER}-{trace.trace_id}",
        placeholder="All segments: choose tags to show only the segments carrying them",
        help="Show only the segments that carry any of these tags (Thought Anchors' labels)",
    )
    return [tag for tag in counts if tag in chosen]


def _paged_start(here: BrowseLocation, chosen: list[str], total: int, size: int) -> int | None:
    """Where a window the buttons paged to starts (a position among ``total`` rows).

    None when the rows follow the selection: nothing was paged, or another segment is selected.
    """
    paged = st.session_state.get(_PAGED)
    if not paged or paged[0] != (here.file, here.line, here.segment, tuple(chosen)):
        return None
    return min(int(paged[1]), max(total - size, 0))


def _page(here: BrowseLocation, chosen: list[str], start: int) -> None:
    st.session_state[_PAGED] = ((here.file, here.line, here.segment, tuple(chosen)), start)


def _window_moves(
    rows: list[int], shown: list[int], here: BrowseLocation, chosen: list[str], size: int
) -> None:
    """Which segments the table shows, and buttons that page the rows a window's length.

    ``shown``: the rows the filter lets through (true indices); paging keeps the selection.
    """
    back, on, caption = st.columns([1, 1, 3], vertical_alignment="center")
    first = shown.index(rows[0])
    moves = [
        (back, f"◀ {size}", "rows-back", max(first - size, 0), first == 0),
        (on, f"{size} ▶", "rows-on", min(first + size, len(shown) - size), rows[-1] == shown[-1]),
    ]
    for column, label, key, start, at_end in moves:
        column.button(
            label,
            key=key,
            on_click=_page,
            args=(here, chosen, start),
            disabled=at_end,
            help=f"Show the {size} rows before or after these; segment {here.segment} stays "
            "selected",
            width="stretch",
        )
    where = (
        ""
        if here.segment in rows
        else f"; segment {here.segment}, selected, is not among them (j or k brings it back)"
    )
    if chosen:
        caption.caption(
            f"{len(rows)} of the {len(shown):,} tagged rows: segments {rows[0]:,}–{rows[-1]:,}"
            f"{where}"
        )
    else:
        caption.caption(
            f"Segments {rows[0]:,}–{rows[-1]:,} of {len(shown):,}{where}; the rows follow the "
            "selection (j, k, the segment box, a click on the chart)."
        )


def _pick_segment(key: str, here: BrowseLocation, rows: list[int]) -> None:
    st.session_state[_CLICKS] = st.session_state.get(_CLICKS, 0) + 1
    row = picked_row(st.session_state[key]["selection"])
    if row is not None and 0 <= row < len(rows):  # a position among the rows shown
        go_to(BrowseLocation(here.file, here.line, rows[row]))
