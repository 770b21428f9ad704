"""Settings: default model, PRM and segmenter, the labeller; saved in the traces folder."""

import streamlit as st

from llenvs.ui.page_guard import shows_errors, through_app
from llenvs.ui.settings_view import settings_form
from llenvs.workbench.files import traces_dir

through_app()
st.title("Settings")

with shows_errors():
    settings_form(traces_dir())
