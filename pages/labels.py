"""Labels: how labellers and PRMs agree with the step labels of a trace file."""

import streamlit as st

from llenvs.ui import how_to_get_traces, labels
from llenvs.ui.common import shows_errors, through_app
from llenvs.workbench import MISSING
from llenvs.workbench.files import traces_dir

through_app()
st.title("Step labels")
st.caption(
    "Human step labels (the label store beside a trace file) per labeller, between labellers, "
    "and against PRM scores: the numbers `llenvs agreement` prints."
)

with shows_errors():
    path = labels.choose_file()
    if path is None:
        st.info(how_to_get_traces(traces_dir()))
        st.stop()
    file = labels.cached_labelled_file(path)
    if labels.no_labels(file):
        st.stop()
    labellers = labels.choose_labellers(file)
    scores = labels.chosen_scores(file)
    if not labellers:
        st.info("Choose at least one labeller.")
        st.stop()
    comparison = labels.cached_comparison(file, labellers, scores)
    st.header("Labellers")
    st.dataframe(labels.coverage_table(comparison), hide_index=True, placeholder=MISSING)
    for (first, second), agreement in comparison.pairs.items():
        labels.labeller_pair(first, second, agreement, file, comparison.level)
    if comparison.prms:
        st.header("PRMs against the labels")
    for (prm, labeller), against in comparison.prms.items():
        labels.prm_against_labeller(prm, labeller, against, comparison, file)
