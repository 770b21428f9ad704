"""Home: where the traces come from, how many there are, and what each page does."""

import streamlit as st

from llenvs.ui import add_traces, folder_summary, open_path, page_guide, start_here
from llenvs.ui.common import shows_errors, through_app
from llenvs.workbench.files import traces_dir

through_app()
st.title("llenvs workbench")
st.caption("Reasoning traces, segment by segment: per-step rewards, PRM scores, segmenters.")

with shows_errors():
    folder = traces_dir()
    start_here(folder)
    st.header("Traces")
    folder_summary(folder)
    open_path()
    st.header("Add traces")
    add_traces(folder)
    st.header("Pages")
    page_guide()
