"""The llenvs workbench: ``streamlit run app.py`` (``make run`` binds it to 127.0.0.1)."""

import streamlit as st

from llenvs.workbench import PAGES

st.set_page_config(page_title="llenvs workbench", page_icon=":material/segment:", layout="wide")
navigation = st.navigation(
    [
        st.Page(page.file, title=page.title, icon=page.icon, default=number == 0)
        for number, page in enumerate(PAGES)
    ]
)
navigation.run()
