"""Response text on a page, exactly as it is: every space, tab and newline kept, never HTML.

``st.code`` keeps whitespace but loads the code highlighter (1.6 MB of JavaScript the browser
evaluates before it draws the page); ``st.text`` dedents and strips its text; Streamlit redraws
a ``<pre>`` without its style. This writes the text escaped, its line breaks as character
references (so Markdown sees one line of raw HTML and leaves it alone), in a ``<div>`` that
keeps whitespace and wraps long lines.
"""

from __future__ import annotations

import html

import streamlit as st

__all__ = ["TEXT_CLASS", "text_block", "text_html"]

TEXT_CLASS = "llenvs-text"
"""The class of the ``<div>`` a text block is drawn in (tests find the blocks by it)."""

_STYLE = "white-space: pre-wrap; overflow-wrap: anywhere; font-family: inherit; margin: 0"


def text_html(text: str) -> str:
    r"""The HTML of a text block: ``text`` escaped, in a ``<div>`` that keeps its whitespace.

    Example:
        >>> text_html(" <b>x</b>\n\n  y ").split(">", 1)[1]
        ' &lt;b&gt;x&lt;/b&gt;&#10;&#10;  y </div>'

    """
    escaped = html.escape(text).replace("\r", "&#13;").replace("\n", "&#10;")
    return f'<div class="{TEXT_CLASS}" style="{_STYLE}">{escaped}</div>'


def text_block(text: str) -> None:
    """Draw ``text`` as it is (see the module's docstring)."""
    st.markdown(text_html(text), unsafe_allow_html=True)
