"""Compare segmenters: one trace under 2–4 segmenters, side by side."""

import streamlit as st

from llenvs.ui import compare
from llenvs.ui.common import shows_errors, through_app

through_app()
st.title("Compare segmenters")

with shows_errors():
    chosen = compare.chosen_trace()
    text, question, origin = compare.choose_text()
    specs = compare.choose_specs(chosen)
    with shows_errors("segmenting"):
        compare.show_comparison(text, question, specs)
    if origin != "pasted text" and chosen is not None:
        path, _, trace = chosen
        compare.segmenter_values_panel(path, trace, specs)
