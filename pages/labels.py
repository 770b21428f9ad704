"""Labels: how labellers and PRMs agree with the step labels of a trace file."""

import streamlit as st

from llenvs.ui import agreement_view, labels_view, prm_scores_choice
from llenvs.ui.home_view import how_to_get_traces
from llenvs.ui.labelled_file import cached_labelled_file
from llenvs.ui.page_guard import shows_errors, through_app
from llenvs.workbench.files import traces_dir
from llenvs.workbench.wording import MISSING

through_app()
st.title("Step labels")
st.caption(
    "Human step labels (the label store beside a trace file) per labeller, between labellers, "
    "and against PRM scores: the numbers `llenvs agreement` prints."
)

with shows_errors():
    path = labels_view.choose_file()
    if path is None:
        st.info(how_to_get_traces(traces_dir()))
        st.stop()
    file = cached_labelled_file(path)
    if labels_view.no_labels(file):
        st.stop()
    labellers = labels_view.choose_labellers(file)
    scores = prm_scores_choice.chosen_scores(file)
    if not labellers:
        st.info("Choose at least one labeller.")
        st.stop()
    comparison = agreement_view.cached_comparison(file, labellers, scores)
    st.header("Labellers")
    st.dataframe(agreement_view.coverage_table(comparison), hide_index=True, placeholder=MISSING)
    for (first, second), agreement in comparison.pairs.items():
        agreement_view.labeller_pair(first, second, agreement, file, comparison.level)
    if comparison.prms:
        st.header("PRMs against the labels")
    for (prm, labeller), against in comparison.prms.items():
        agreement_view.prm_against_labeller(prm, labeller, against, comparison, file)
