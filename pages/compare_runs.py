"""Compare runs: two or more trace files of the same tasks, task by task."""

import streamlit as st

from llenvs.ui import runs_view
from llenvs.ui.page_guard import shows_errors, through_app
from llenvs.ui.trace_source import trace_files, traces_dir

through_app()
st.title("Compare runs")
st.caption(
    "Two or more trace files of the same tasks (two models, two segmenters, with and without "
    "an intervention): success side by side, the paired difference with its interval, and the "
    "tasks where they disagree."
)

with shows_errors():
    files = trace_files(traces_dir())
    by_name = {path.name: path for path in files}
    chosen = st.multiselect(
        "Runs (trace files; the first is compared with each other one)",
        list(by_name),
        default=list(by_name)[:2] if len(by_name) >= 2 else [],
        key="runs-files",
    )
    if len(chosen) < 2:
        st.info("Choose at least two trace files.")
    else:
        runs_view.show_runs([by_name[name] for name in chosen])
