"""The Compare page's panels: which trace, which segmenters, and the comparison itself.

The trace comes from the URL (``?file=…&trace=…``, as Browse links it; a file outside the traces
folders is refused), else the first trace of the first file; its response can also be replaced
by any pasted text.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import streamlit as st

from llenvs.analysis import MAX_SEGMENTERS
from llenvs.traces import Trace
from llenvs.ui.common import cached_index, cached_trace, read_location
from llenvs.workbench import (
    MISSING,
    agreement_figure,
    agreement_matrix,
    aligned_table,
    compare_segmenters,
    count,
)
from llenvs.workbench.files import trace_files, traces_dir

__all__ = [
    "DEFAULT_SPECS",
    "SPEC_HELP",
    "choose_specs",
    "choose_text",
    "chosen_trace",
    "show_comparison",
]

DEFAULT_SPECS = ("steps", "sentence", "line:\\n\\n", "pattern")
"""The specs the segmenter boxes start with."""

_OPENED = "compare-opened"

SPEC_HELP = (
    "A segmenter spec: `sentence`, `line`, `line:\\n\\n` (paragraphs), `pattern` or "
    "`pattern:<regex>:<regex>` (cut before each match), `token:<size>[:cl100k_base]`, "
    "`composite:<spec>+<spec>`, `steps` (paragraphs, then sentences)."
)

SAMPLE_TEXT = (
    "Two dogs have 2 × 4 = 8 legs. Three birds have 3 × 2 = 6 legs.\n\n"
    "So the total is 8 + 6 = 15.\n\n<answer>15</answer>"
)
"""The text compared when no trace file exists yet."""


def chosen_trace() -> tuple[str, int, Trace] | None:
    """The trace the URL names (else the first of the first file): its file, line and trace."""
    location = read_location()
    files = [str(p) for p in trace_files(traces_dir())]
    path = location.file or (files[0] if files else None)
    if path is None:
        return None
    index = cached_index(path)
    if not index.count:
        return None
    lines = index.table["line"].tolist()
    line = location.line if location.line is not None and location.line in lines else lines[0]
    return path, line, cached_trace(index, line)


def choose_text() -> tuple[str, str, str]:
    """The text to compare, its question, and where it came from (a trace or pasted text)."""
    text, question, origin = SAMPLE_TEXT, "", "a sample text (no trace file yet)"
    chosen = chosen_trace()
    if chosen is not None:
        path, line, trace = chosen
        text, question = trace.response, trace.task.prompt
        task = trace.task
        origin = f"{Path(path).name}, line {line} ({task.environment}, task {task.task_index})"
    st.caption(f"Text: {origin}")
    pasted = st.text_area("Or paste a text to compare", value="", height=80, key="compare-text")
    if pasted.strip():
        return pasted, question, "pasted text"
    return text, question, origin


def choose_specs(
    opening: Sequence[str] = DEFAULT_SPECS[:3], opened_for: object = None
) -> list[str]:
    """2 to 4 segmenter specs typed by the user; the boxes open on ``opening``.

    They are set to ``opening`` again whenever it or ``opened_for`` (the trace they are for)
    changes, and otherwise keep what the user typed; a box the user adds opens on a default.
    """
    seed = (opened_for, tuple(opening))
    if st.session_state.get(_OPENED) != seed and 2 <= len(opening) <= MAX_SEGMENTERS:
        st.session_state[_OPENED] = seed
        st.session_state["compare-count"] = len(opening)
        for number, spec in enumerate(opening):
            st.session_state[f"compare-spec-{number}"] = spec
    st.session_state.setdefault("compare-count", len(opening))
    count = st.slider("Segmenters", 2, MAX_SEGMENTERS, key="compare-count")
    columns = st.columns(count)
    specs = []
    for number, column in enumerate(columns):
        st.session_state.setdefault(f"compare-spec-{number}", DEFAULT_SPECS[number])
        spec = column.text_input(
            f"Segmenter {number + 1}", key=f"compare-spec-{number}", help=SPEC_HELP
        )
        specs.append(spec)
    return specs


def show_comparison(text: str, question: str, specs: list[str]) -> None:
    """Counts and mean scores, the aligned cuts side by side, and pairwise boundary F1.

    A bad spec shows its error in its own column; the others are compared without it.
    """
    runs = compare_segmenters(text, question, specs)
    columns = st.columns(len(runs))
    for column, run in zip(columns, runs, strict=True):
        if run.error is not None:
            column.metric(f"`{run.spec}`", "—")
            column.error(run.error)
            continue
        rated = [s for s in run.scores if s is not None]
        mean = sum(rated) / len(rated) if rated else float("nan")
        low = min(rated) if rated else float("nan")
        column.metric(f"`{run.spec}`", count(run.count, "segment"))
        column.caption(f"ArithmeticPRM: mean {mean:.2f}, lowest {low:.2f}")
    good = [run for run in runs if run.error is None]
    if not good:
        return
    left, right = st.columns([3, 1])
    with left:
        st.markdown(
            "**Aligned cuts** — one row per piece between any two cuts; `▶ k (score)` "
            "marks where a segmenter's segment k starts, with its ArithmeticPRM score."
        )
        aligned = aligned_table(text, good)
        st.dataframe(
            aligned,
            hide_index=True,
            height=min(600, 38 + 35 * len(aligned)),
            column_config={"text": st.column_config.TextColumn("text", width="large")},
            placeholder=MISSING,
        )
    with right:
        st.markdown("**Boundary agreement** (pairwise boundary F1)")
        st.plotly_chart(agreement_figure(agreement_matrix(text, good)), key="agreement")
