"""Settings: default model, PRM and segmenter, the labeller; saved in the traces folder."""

import streamlit as st

from llenvs.ui.common import settings_form, shows_errors, through_app
from llenvs.workbench.files import traces_dir

through_app()
st.title("Settings")

with shows_errors():
    settings_form(traces_dir())
