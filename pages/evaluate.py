"""Evaluate: run the model on tasks from the app, watch it, and open the results in Browse."""

import streamlit as st

from llenvs.ui import evaluate_page
from llenvs.ui.common import shows_errors, through_app

through_app()
st.title("Evaluate")

with shows_errors():
    evaluate_page()
