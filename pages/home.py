"""Home: where the traces come from, how many there are, and what each page does."""

import streamlit as st

from llenvs.ui import home_view
from llenvs.ui.page_guard import shows_errors, through_app
from llenvs.workbench.files import traces_dir

through_app()
st.title("llenvs workbench")
st.caption("Reasoning traces, segment by segment: per-step rewards, PRM scores, segmenters.")

with shows_errors():
    folder = traces_dir()
    home_view.start_here(folder)
    st.header("Traces")
    home_view.folder_summary(folder)
    home_view.open_path()
    st.header("Add traces")
    home_view.add_traces(folder)
    st.header("Pages")
    home_view.page_guide()
