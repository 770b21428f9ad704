"""Experiments: one intervention over a trace file, run as one experiment, read as a map."""

import streamlit as st

from llenvs.ui import experiments_page
from llenvs.ui.common import shows_errors, through_app

through_app()
st.title("Experiments")

with shows_errors():
    experiments_page()
