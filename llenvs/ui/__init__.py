"""The workbench's Streamlit views: every module here draws with Streamlit.

The pages (``app.py``, ``pages/``) stay thin and call these views; what the views compute and
run without Streamlit is in ``llenvs.workbench``.
"""

import llenvs.workbench  # noqa: F401  (registers the "mc" PRM with get_prm)
