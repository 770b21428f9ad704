"""The workbench's Streamlit views: every module here draws with Streamlit.

The pages (``app.py``, ``pages/``) stay thin and call these views; what the views compute and
run without Streamlit is in ``llenvs.workbench``.
"""

import llenvs.workbench  # noqa: F401  (registers the "mc" PRM with get_prm)
from llenvs.ui._evaluate import evaluate_page
from llenvs.ui._experiments import experiments_page
from llenvs.ui._home import (
    add_traces,
    folder_summary,
    how_to_get_traces,
    open_path,
    page_guide,
    start_here,
)
from llenvs.ui._search import search_page

__all__ = [
    "add_traces",
    "evaluate_page",
    "experiments_page",
    "folder_summary",
    "how_to_get_traces",
    "open_path",
    "page_guide",
    "search_page",
    "start_here",
]
