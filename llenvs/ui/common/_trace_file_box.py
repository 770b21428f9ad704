"""The sidebar's *Trace file* box: the pages that show one trace file at a time pick it here.

Names are cut in the middle to fit the sidebar (``short_name``), so that files whose names differ
only at their ends still tell apart. The page says what picking another file does (its URL).
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from llenvs.workbench import SIDEBAR_NAME, short_name

__all__ = ["trace_file_box"]


def trace_file_box(files: list[str], current: str) -> str:
    """The sidebar's box of the trace ``files``, opened on ``current``: the file picked."""
    return st.sidebar.selectbox(
        "Trace file",
        files,
        index=files.index(current),
        format_func=lambda p: short_name(Path(p).name, SIDEBAR_NAME),
    )
