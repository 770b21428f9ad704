"""Errors on a page become messages, never tracebacks.

Example:
    >>> with shows_errors():  # outside a running app, st.error only logs
    ...     raise ValueError("bad spec")

"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

__all__ = ["shows_errors", "through_app"]


@contextmanager
def shows_errors(what: str = "") -> Iterator[None]:
    """Run a block; an error in it shows as ``st.error`` with its message, and the page goes on.

    Streamlit's own control flow (``st.rerun``, ``st.stop``) passes through: it derives from
    ``BaseException``, not ``Exception``. ``what`` says what was being done.

    Example:
        >>> with shows_errors("reading the file"):
        ...     raise TimeoutError("pattern '(a|aa)+$' took longer than 2 s")

    """
    prefix = f"{what}: " if what else ""
    try:
        yield
    except TimeoutError as error:
        st.error(f"{prefix}stopped, this took too long — {error}", icon=":material/timer:")
    except Exception as error:  # every error becomes a message on the page (invariant 7)
        kind = type(error).__name__
        plain_key_error = type(error) is KeyError and error.args
        message = str(error.args[0]) if plain_key_error else str(error)
        st.error(f"{prefix}{kind}: {message}", icon=":material/error:")


def through_app() -> None:
    """Make sure a page runs inside ``app.py``'s navigation; call it first on every page.

    Streamlit still knows its old multipage mode: when a server's first request opens a page's
    URL directly (a shared link to ``/browse``), it runs ``pages/browse.py`` alone, without
    ``app.py`` (no wide layout, the wrong page list). Here the page then runs ``app.py``
    itself, whose ``st.navigation`` ends that mode and draws this page, and stops.

    Example:
        >>> through_app()  # outside a running app there is nothing to do

    """
    import runpy

    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    context = get_script_run_ctx(suppress_warning=True)
    # A private flag of Streamlit's: where a version lacks it, the old mode is taken as off.
    if context is None or not getattr(PagesManager, "uses_pages_directory", False):
        return
    runpy.run_path(context.main_script_path, run_name="__main__")
    st.stop()
