"""The browser session of the page run calling: what the workbench's jobs and models are kept by.

Example:
    >>> current_session(), in_app()
    ('', False)

"""

from __future__ import annotations

from streamlit.runtime.scriptrunner import get_script_run_ctx

__all__ = ["current_session", "in_app"]


def current_session() -> str:
    """The id of the browser session whose page run calls, or "" outside a running app."""
    context = get_script_run_ctx(suppress_warning=True)
    return "" if context is None else str(context.session_id)


def in_app() -> bool:
    """Whether a page run of the app calls (so a spinner or a toast has a page to go to)."""
    return get_script_run_ctx(suppress_warning=True) is not None
