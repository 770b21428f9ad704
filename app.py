"""The llenvs workbench: ``streamlit run app.py`` (``make run`` binds it to 127.0.0.1)."""

import streamlit as st

st.set_page_config(page_title="llenvs workbench", page_icon=":material/segment:", layout="wide")
navigation = st.navigation(
    [
        st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
        st.Page("pages/browse.py", title="Browse", icon=":material/search:"),
        st.Page("pages/evaluate.py", title="Evaluate", icon=":material/play_arrow:"),
        st.Page("pages/compare.py", title="Compare segmenters", icon=":material/content_cut:"),
        st.Page("pages/compare_runs.py", title="Compare runs", icon=":material/compare_arrows:"),
        st.Page("pages/experiments.py", title="Experiments", icon=":material/science:"),
        st.Page("pages/labels.py", title="Labels", icon=":material/label:"),
        st.Page("pages/settings.py", title="Settings", icon=":material/settings:"),
    ]
)
navigation.run()
