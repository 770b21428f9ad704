"""The trace view's segment panel: the segment rows above their chart, both with labels.

Browse draws it as part of the page, the rows first and the chart after the segment's text (label
mode draws its own, lighter, inside its fragment: ``labelling_view``); a click on a row or on a
segment's column of the chart selects it. The table (``segment_table``) is built once per version of
the trace file; its ``label`` column is filled in at each run from the label store
(``cached_labels``: parsed once, then only the lines appended), for the labeller shown
(``segment_rows_table``), so a new label costs no new table.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import pandas as pd
import streamlit as st

from llenvs.traces import Trace
from llenvs.ui.browse._segment_rows import segment_rows
from llenvs.ui.common import go_to, stamp
from llenvs.workbench import BrowseLocation
from llenvs.workbench.browse import label_cell, labels_shown, segment_table
from llenvs.workbench.charts import segment_figure, selected_segment
from llenvs.workbench.files import cached_labels

__all__ = ["segment_chart", "segment_rows_panel", "segment_rows_table"]


def segment_rows_table(
    path: str, line: int, trace: Trace, labeller: str | None = None
) -> pd.DataFrame:
    """The ``segment_table`` of ``trace`` (on ``line`` of ``path``), labels from its store.

    ``labeller``: the labeller whose labels the ``label`` column shows (``shown_labels``).
    A new label (the labels file changed) changes only that column.

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A.",
        ...           segments=(SegmentRecord(0, 0, 2, "A."),))
        >>> segment_rows_table("/no/such.jsonl", 1, t)["label"].tolist()
        ['']

    """
    table = _table(path, line, stamp(path), trace)
    shown = labels_shown(cached_labels(path), trace, labeller)
    return table.assign(label=[label_cell(shown.get(int(s))) for s in table["#"].tolist()])


def segment_rows_panel(
    trace: Trace, table: pd.DataFrame, here: BrowseLocation
) -> tuple[range, Any]:
    """Draw the segment rows the page's width; the span they show and the chart's place.

    The rows take the whole width so that their ``text`` column has room (beside the chart, at
    1500 px, the other columns left it 40 px). The chart goes in its place under the rows later
    (``segment_chart``), so the page can send the rows and the text before the charts, which
    take longest to draw.
    """
    window = segment_rows(trace, table, here)
    return window, st.container()


def segment_chart(column: Any, table: pd.DataFrame, here: BrowseLocation, window: range) -> None:
    """Draw the chart of PRM score and cumulative reward in ``column``, ``window`` shaded."""
    with column:
        chart_key = f"chart-{here.line}-{here.segment}"
        st.vega_lite_chart(
            segment_figure(table, here.segment, window),
            key=chart_key,
            on_select=functools.partial(_clicked_point, chart_key, here),
        )


@st.cache_resource(max_entries=16, show_spinner=False)
def _table(path: str, line: int, version: tuple[int, int], _trace: Trace) -> pd.DataFrame:
    """The table of the trace on ``line`` of ``path`` (at ``version``), without labels.

    Kept, not copied, at each call (``cache_resource``): callers get a new frame from it
    (``segment_rows_table``'s ``assign``) and never change it.
    """
    del path, line, version  # the cache key: the trace on this line of this version of the file
    return segment_table(_trace)


def _clicked_point(key: str, here: BrowseLocation) -> None:
    picked = selected_segment(st.session_state[key])
    if picked is not None and not math.isnan(picked):
        go_to(BrowseLocation(here.file, here.line, picked))
