"""What a substitute branch found: its target beside the model's own text that replaced it.

The target and the chosen text side by side, each with its similarity to the target and its
on-policy percentile and mean log-probability per token (where the model could score them), and
a line that says how many tries it took, or plainly that no try came close.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from llenvs.evaluation.branching import substitution_from_record
from llenvs.traces import TraceFormatError
from llenvs.workbench import MISSING, substitution_rows

__all__ = ["show_substitution"]


def show_substitution(record: Any) -> None:
    """Draw a branch's ``metadata.substitute``: the search's line and the two texts' rows."""
    try:
        found = substitution_from_record(record)
    except (TraceFormatError, ValueError) as error:
        st.warning(f"This branch's substitute record cannot be read: {error}")
        return
    (st.caption if found.reached else st.warning)(f"Substitute: {found.headline()}")
    st.dataframe(substitution_rows(found), hide_index=True, placeholder=MISSING)
