"""Compare segmenters: one trace under 2–4 segmenters, side by side."""

import streamlit as st

from llenvs.ui import compare_view, segmenter_values_view
from llenvs.ui.page_guard import shows_errors, through_app

through_app()
st.title("Compare segmenters")

with shows_errors():
    chosen = compare_view.chosen_trace()
    text, question, origin = compare_view.choose_text()
    specs = segmenter_values_view.choose_specs(chosen)
    with shows_errors("segmenting"):
        compare_view.show_comparison(text, question, specs)
    if origin != "pasted text" and chosen is not None:
        path, _, trace = chosen
        segmenter_values_view.segmenter_values_panel(path, trace, specs)
