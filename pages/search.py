"""Search: every step of the traces folder, by text, regex or meaning, filtered by its numbers."""

import streamlit as st

from llenvs.ui import how_to_get_traces, search_page
from llenvs.ui.common import shows_errors, through_app
from llenvs.workbench.files import traces_dir

through_app()
st.title("Search steps")
st.caption(
    "Every step of every trace in the traces folder: by text, by regular expression or by "
    "meaning (all-MiniLM-L6-v2), filtered by its numbers; each hit opens Browse at its step, "
    "and the hits export as a label queue."
)

with shows_errors():
    if not list(traces_dir().glob("*.jsonl")):
        st.info(how_to_get_traces(traces_dir()))
        st.stop()
    search_page(traces_dir())
