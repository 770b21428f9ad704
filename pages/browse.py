"""Browse: a filtered trace list, and one trace segment by segment beside its chart."""

import streamlit as st

from llenvs.ui import browse_view, trace_list_view
from llenvs.ui.browse_url import read_location
from llenvs.ui.home_view import how_to_get_traces
from llenvs.ui.intervention_panel import intervention_panel
from llenvs.ui.page_guard import shows_errors, through_app
from llenvs.workbench.files import traces_dir

through_app()
st.title("Browse traces")

with shows_errors():
    location = browse_view.choose_file(read_location())
    if location is None or location.file is None:
        st.info(how_to_get_traces(traces_dir()))
        st.page_link("pages/home.py", label="Home: import or upload traces", icon=":material/home:")
        st.stop()
    index = browse_view.load_index(location.file)
    trace_list_view.show_skipped(index)
    shown = trace_list_view.filters(index).apply(index.table)
    line = trace_list_view.trace_list(shown, index.count, location)
    if line is not None:
        browse_view.navigation(shown["line"].tolist(), location, index)
        with browse_view.trace_guard(location.file, line):
            trace, segment = browse_view.trace_view(index, line, location)
            st.page_link(
                "pages/compare.py",
                label="Compare segmenters on this trace",
                icon=":material/content_cut:",
                query_params={"file": location.file, "trace": str(line)},
            )
            if segment is not None:  # None in label mode: its keys move without the page
                intervention_panel(location.file, trace, segment)
