"""An OpenAI-compatible server's fields, as the Settings page and the model picker ask them.

Both ask the same options (``base_url``, ``mode``, ``tokenizer``, ``api_key_env``: never a key),
each box opened on the value already recorded (saved settings, or a trace's own model spec), and
turn what is typed into the same options (``server_options``).

Example:
    >>> server_options(" http://localhost:8000/v1 ", "chat", "OPENAI_API_KEY", " ")
    {'base_url': 'http://localhost:8000/v1', 'mode': 'chat', 'api_key_env': 'OPENAI_API_KEY'}

"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

__all__ = ["MODES", "mode_box", "server_option", "server_options"]

MODES = ["completions", "chat"]
"""How a server is asked: token-id prompts (``/v1/completions``) or chat messages."""


def mode_box(where: DeltaGenerator, index: int, key: str) -> str:
    """The server's mode (one of ``MODES``, ``index`` chosen), in the column ``where``."""
    mode = where.selectbox(
        "Mode",
        MODES,
        index=index,
        key=key,
        help="completions: token-id prompts, faithful continuation (vLLM); chat: chat "
        "messages (hosted APIs)",
    )
    return str(mode)


def server_option(
    label: str,
    recorded: Mapping[str, Any],
    option: str,
    key: str,
    *,
    where: DeltaGenerator | None = None,
    default: str = "",
    help: str | None = None,
) -> str:
    """A box for one of a server's options, opened on its ``recorded`` value.

    ``default`` when none is recorded; in ``where`` (a column), else the page.
    """
    box = st.text_input if where is None else where.text_input
    return box(label, value=str(recorded.get(option, default)), key=key, help=help)


def server_options(url: str, mode: str, variable: str, tokenizer: str) -> dict[str, str]:
    """The options of a server from its boxes' text (the tokenizer only when one is typed)."""
    options = {"base_url": url.strip(), "mode": mode, "api_key_env": variable.strip()}
    if tokenizer.strip():
        options["tokenizer"] = tokenizer.strip()
    return options
