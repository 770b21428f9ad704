"""Compare runs: two or more runs of the same tasks (trace files, experiment positions)."""

import streamlit as st

from llenvs.ui import runs
from llenvs.ui.common import shows_errors, through_app
from llenvs.workbench.files import traces_dir

through_app()
st.title("Compare runs")
st.caption(
    "Two or more runs of the same tasks (two models, two segmenters, with and without an "
    "intervention, an experiment's branches at one position against their parents): success "
    "side by side, the paired difference with its interval, and the tasks where they disagree."
)

with shows_errors():
    choices = runs.run_choices(traces_dir())
    for problem in choices.problems:
        st.warning(problem, icon=":material/warning:")
    for name in runs.preselect(choices, "runs-files"):
        st.warning(f"{name!r} is not a run in {traces_dir()}: not chosen.")
    chosen = st.multiselect(
        "Runs (trace files, and experiments' branches at each position; the first is compared "
        "with each other one)",
        choices.names,
        key="runs-files",
    )
    if len(chosen) < 2:
        st.info("Choose at least two runs.")
    else:
        runs.show_runs([choices.run(name) for name in chosen])
