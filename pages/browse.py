"""Browse: a filtered trace list, and one trace segment by segment beside its chart."""

import streamlit as st

from llenvs.ui import browse, how_to_get_traces
from llenvs.ui.common import read_location, shows_errors, through_app
from llenvs.workbench.files import traces_dir

through_app()
st.title("Browse traces")

with shows_errors():
    location = browse.choose_file(read_location())
    if location is None or location.file is None:
        st.info(how_to_get_traces(traces_dir()))
        st.page_link("pages/home.py", label="Home: import or upload traces", icon=":material/home:")
        st.stop()
    index = browse.load_index(location.file)
    browse.show_skipped(index)
    shown = browse.filters(index).apply(index.table)
    line = browse.trace_list(shown, index.count, location)
    if line is not None:
        browse.navigation(shown["line"].tolist(), location, index)
        with browse.trace_guard(location.file, line):
            trace, segment = browse.trace_view(index, line, location)
            st.page_link(
                "pages/compare.py",
                label="Compare segmenters on this trace",
                icon=":material/content_cut:",
                query_params={"file": location.file, "trace": str(line)},
            )
            if segment is not None:  # None in label mode: its keys move without the page
                browse.intervention_panel(location.file, trace, segment)
