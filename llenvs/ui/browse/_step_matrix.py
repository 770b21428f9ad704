"""The step values panel's "Which step led to which" toggle: the step-to-step matrix.

For stored rollouts of ours, a toggle: on, the panel finds, for every rollout, which later
steps' content it says again (``step_matrix``: all-MiniLM-L6-v2 where installed, else word
overlap, the caption says which), and shows, for the selected segment, the steps it led to and
the steps that led to it (the strongest cells of its row and its column, each a button that
selects that step), above the whole matrix as a heatmap, and beside it the same question asked
inside a local model (``suppression_beside``: attention suppression). What is found is stored in the
analysis sidecar (``content`` lines), so reopening the trace reads it back. Published values
have no rollout texts: the toggle is not offered for them.
"""

from __future__ import annotations

import json

import streamlit as st

from llenvs.analysis import stored_step_analysis
from llenvs.analysis.instruments import MatrixCell, StepMatrix, step_matrix
from llenvs.analysis.sidecar import PUBLISHED_KEY
from llenvs.traces import Trace
from llenvs.ui.browse._content_returns import similarity
from llenvs.ui.browse._suppression import suppression_beside
from llenvs.ui.common import go_to
from llenvs.workbench import BrowseLocation
from llenvs.workbench.charts import matrix_figure

__all__ = ["MATRIX_TOGGLE", "matrix_toggle"]

MATRIX_TOGGLE = "sv-matrix"
"""The toggle's key."""

SHOWN = 3
"""How many cells of the selected step's row and column are shown as links."""


@st.cache_data(max_entries=16, show_spinner="Finding which later steps each rollout says again…")
def _matrix(store: str, key: str, version: tuple[int, int], _trace: Trace) -> StepMatrix:
    """``step_matrix`` of the rollouts stored under ``key`` (stored as found; cached)."""
    del version  # keys the cache: the sidecar as it is now
    analysis = stored_step_analysis(_trace, store, json.loads(key))
    return step_matrix(_trace, analysis, similarity=similarity(), store=store)


def matrix_toggle(
    store: str, key: str, version: tuple[int, int], trace: Trace, here: BrowseLocation
) -> None:
    """The toggle, under the stored result ``key`` (its JSON) of ``trace``, ``here`` selected."""
    if PUBLISHED_KEY in json.loads(key):
        return
    if not st.toggle(
        "Which step led to which",
        key=MATRIX_TOGGLE,
        help="For steps i < j: how much keeping step i changes how often step j's content "
        "comes in a rollout (a run of its sentences at least 0.8 alike, all-MiniLM-L6-v2, "
        "else word overlap), with its 95% interval: P(j | rollouts from before i+1) − "
        "P(j | rollouts from before i). Co-occurrence under resampling, not an effect on the "
        "answer. Stored beside the trace.",
    ):
        return
    matrix = _matrix(store, key, version, trace)
    st.caption(matrix.caption())
    step = here.segment
    for title, cells, other in (
        ("What this step led to", matrix.led_to(step, SHOWN), "target"),
        ("What led to this step", matrix.led_from(step, SHOWN), "source"),
    ):
        row = st.container(horizontal=True, vertical_alignment="center", gap="small")
        row.caption(f"{title}:" if cells else f"{title}: no cell with rollouts on both sides")
        for cell in cells:
            _link(row, cell, getattr(cell, other), here, title)
    rollouts, inside = st.columns(2)
    rollouts.plotly_chart(matrix_figure(matrix, step), key=f"sv-matrix-chart-{here.line}")
    with inside:
        suppression_beside(trace, matrix, here)


def _link(
    row: st.delta_generator.DeltaGenerator,
    cell: MatrixCell,
    target: int,
    here: BrowseLocation,
    title: str,
) -> None:
    interval = cell.interval
    row.button(
        f"step {target}: {cell.value:+.2f} [{interval.low:.2f}, {interval.high:.2f}]",
        key=f"matrix-{here.line}-{here.segment}-{title}-{target}",
        on_click=go_to,
        args=(BrowseLocation(here.file, here.line, target),),
        help=cell.describe() + ". Select step " + str(target),
    )
