"""The step values chart as the panel draws it: the importance measure chosen, zoomed, clickable.

The lower chart shows one importance measure per segment: ours (``v_{i+1} - v_i``, with its
interval) or, for published values, any column the study published (Thought Anchors:
resampling, counterfactual and forced importance, in accuracy and in KL, ...), chosen in a
selectbox. A trace of more than ``ZOOM`` segments opens zoomed on the selected segment's bar,
in the middle, and ``ZOOM // 2`` bars either side (near an end, the ``ZOOM`` bars there:
``zoom_span``); "Whole trace" shows them all. A click on a bar selects its segment.
The trace's human step labels, when it has any, are marked under the values.

Example:
    >>> rows = pd.DataFrame({"#": [0, 1, 2], "importance": [0.1, -0.2, float("nan")],
    ...                      "importance low": [0.0, -0.3, float("nan")],
    ...                      "importance high": [0.2, -0.1, float("nan")]})
    >>> shown = measure_rows(rows, {"kl": (0.5, None)}, "kl")
    >>> shown["importance"].tolist(), shown["importance low"].tolist()
    ([0.5, nan, nan], [nan, nan, nan])

"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping

import pandas as pd
import streamlit as st

from llenvs.ui.browse._shown_step_values import ShownValues
from llenvs.ui.common import go_to
from llenvs.workbench import BrowseLocation
from llenvs.workbench.browse import measure_label
from llenvs.workbench.charts import OUR_IMPORTANCE, selected_segment, step_values_figure

__all__ = ["MEASURE", "WHOLE", "ZOOM", "importance_chart", "measure_rows", "zoom_span"]

ZOOM = 60
"""About the bars a zoomed chart shows: the selected one and ``ZOOM // 2`` either side."""

MEASURE = "sv-measure"
"""The key of the measure's selectbox (the choice holds from trace to trace)."""

WHOLE = "sv-whole"
"""The key of the "Whole trace" toggle."""


def measure_rows(
    rows: pd.DataFrame, measures: Mapping[str, tuple[float | None, ...]], name: str
) -> pd.DataFrame:
    """``rows`` with the measure ``name`` as their ``importance`` (no interval); ours as is.

    A measure gives one number per segment; the end's row, and any segment it skips, has none.

    Example:
        >>> rows = pd.DataFrame({"#": [0, 1], "importance": [0.3, float("nan")],
        ...                      "importance low": [0.1, 0.0], "importance high": [0.5, 0.0]})
        >>> measure_rows(rows, {}, OUR_IMPORTANCE) is rows
        True

    """
    if name == OUR_IMPORTANCE:
        return rows
    column = [math.nan if v is None else float(v) for v in measures[name]]
    values = [column[b] if b < len(column) else math.nan for b in rows["#"]]
    return rows.assign(
        **{"importance": values, "importance low": math.nan, "importance high": math.nan}
    )


def zoom_span(selected: int, bars: int, size: int = ZOOM) -> tuple[float, float]:
    """The x range of ``selected``'s bar, in the middle, and ``size // 2`` bars either side.

    ``bars``: the chart's bars (0..bars-1). Near an end of the trace the range stops at the
    end and reaches further the other way, so no part of the chart is empty.

    Example:
        >>> zoom_span(150, 322), zoom_span(0, 322, 10), zoom_span(320, 322, 10)
        ((119.5, 180.5), (-0.5, 10.5), (310.5, 321.5))

    """
    half = size // 2
    first = min(max(selected - half, 0), max(bars - 1 - 2 * half, 0))
    return (first - 0.5, first + 2 * half + 0.5)


def importance_chart(
    shown: ShownValues,
    segments: int,
    here: BrowseLocation,
    labels: Mapping[int, int] | None = None,
) -> tuple[float, float] | None:
    """Draw the chart of ``shown`` for a trace of ``segments`` segments, ``here`` selected.

    ``labels``: the trace's step labels (segment -> -1, 0 or 1), marked on the chart. Returns
    the x range it shows (``zoom_span``), None when it shows every bar: the table below shows
    the same rows.
    """
    measure = _measure_choice(shown.measures)
    whole = segments + 1 <= ZOOM or st.toggle(
        "Whole trace",
        key=WHOLE,
        help=f"Show every bar; off: the {ZOOM} bars around the selected segment, in the middle",
    )
    span = None if whole else zoom_span(here.segment, segments + 1)
    charts = step_values_figure(
        measure_rows(shown.rows, shown.measures, measure),
        here.segment,
        measure=measure,
        span=span,
        labels=labels,
    )
    for part, spec in zip(("values", "importance"), charts, strict=True):
        chart_key = f"sv-chart-{part}-{here.line}-{here.segment}"
        st.vega_lite_chart(
            spec,
            key=chart_key,
            on_select=functools.partial(_clicked_bar, chart_key, here, segments),
        )
    return span


def _measure_choice(measures: Mapping[str, tuple[float | None, ...]]) -> str:
    """The selectbox of the importance measures (ours, then the published ones), when any."""
    if not measures:
        return OUR_IMPORTANCE
    choices = [OUR_IMPORTANCE, *measures]
    if st.session_state.get(MEASURE) not in choices:
        st.session_state.pop(MEASURE, None)  # chosen on a trace with other measures
    return str(
        st.selectbox(
            "Importance measure",
            choices,
            key=MEASURE,
            format_func=lambda name: (
                f"{name} (ours, from the values above)"
                if name == OUR_IMPORTANCE
                else f"{measure_label(name)} (published)"
            ),
            help="What the lower chart shows per segment: our v_i+1 − v_i, or a measure the "
            "study published (its own numbers, as published)",
        )
    )


def _clicked_bar(key: str, here: BrowseLocation, segments: int) -> None:
    picked = selected_segment(st.session_state[key])
    if picked is not None and picked >= 0:  # the end's bar selects the last segment
        go_to(BrowseLocation(here.file, here.line, min(picked, segments - 1)))
