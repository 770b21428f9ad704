"""Errors on a page become messages, never tracebacks.

User errors (the library's ``LlenvsError`` family, a ``ValueError`` about bad input, an
``OSError`` about a file) are what the guard is for. An internal error type (``KeyError``,
``TypeError``, ``AttributeError``, ... see ``is_internal_error``) reaching it is a bug: it is
shown all the same, and also logged with its traceback on the ``llenvs.ui.common`` logger,
where the server's log keeps it and the page tests look for it.

Example:
    >>> with shows_errors():  # outside a running app, st.error only logs
    ...     raise ValueError("bad spec")

"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from llenvs.core.errors import LlenvsError

__all__ = ["INTERNAL_ERRORS", "LOGGER", "is_internal_error", "shows_errors", "through_app"]

LOGGER = logging.getLogger(__name__)
"""Where an internal error shown on a page is logged, with its traceback."""

INTERNAL_ERRORS: tuple[type[BaseException], ...] = (
    AttributeError,
    LookupError,
    TypeError,
    NameError,
    AssertionError,
    ArithmeticError,
    RecursionError,
    NotImplementedError,
)
"""Error types that say the code is wrong, not the input (``LookupError``: ``KeyError``,
``IndexError``; ``NameError``: ``UnboundLocalError`` too)."""


def is_internal_error(error: BaseException) -> bool:
    """Whether ``error`` is a bug rather than bad input: an ``INTERNAL_ERRORS`` type.

    The library's own errors are user errors even where they derive from one of those types
    (``UnknownName`` is a ``KeyError``, ``TaskIndexError`` an ``IndexError``).

    Example:
        >>> from llenvs.core.errors import UnknownName
        >>> is_internal_error(KeyError("x")), is_internal_error(ValueError("bad spec"))
        (True, False)
        >>> is_internal_error(UnknownName("environment", "nope", ["leg_counting"]))
        False

    """
    return isinstance(error, INTERNAL_ERRORS) and not isinstance(error, LlenvsError)


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
        if is_internal_error(error):
            LOGGER.error("an internal error reached the page: %r", error, exc_info=error)
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
