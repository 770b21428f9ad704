"""Browse's place in the page's URL: read it, its file checked against the traces folders.

A URL naming a file outside the traces folders is refused when it is read
(``llenvs.workbench.files``), before anything opens it.
"""

from __future__ import annotations

import streamlit as st

from llenvs.workbench import KEPT_PARAMS, BrowseLocation
from llenvs.workbench.files import resolve_trace_path

__all__ = ["go_to", "read_location"]


def read_location() -> BrowseLocation:
    """The location in the page's URL, its file checked against the traces folders.

    A file outside them (``/etc/passwd``, ``../x``, a symlink out) raises the
    ``PermissionError`` of ``resolve_trace_path``, which names the folders.

    Example:
        >>> go_to(BrowseLocation("/etc/passwd"))
        >>> read_location()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        PermissionError: `/etc/passwd` is outside the traces folders; the app opens files only ...
        >>> go_to(BrowseLocation()); read_location()
        BrowseLocation(file=None, line=None, segment=0)

    """
    location = BrowseLocation.from_params(st.query_params.to_dict())
    if location.file is not None:
        resolve_trace_path(location.file)
    return location


def go_to(location: BrowseLocation) -> None:
    """Put ``location`` in the URL (the page shows it on this or the next run).

    Example:
        >>> go_to(BrowseLocation("a.jsonl", 1, 0))

    """
    kept = {name: st.query_params[name] for name in KEPT_PARAMS if name in st.query_params}
    st.query_params.from_dict({**location.to_params(), **kept})
