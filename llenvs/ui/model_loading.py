"""A model for a page, from the shared pool, with a spinner while it loads.

A toast says when running jobs hold more models than the bound (``llenvs.workbench.model_pool``).

Example:
    >>> from llenvs.workbench.model_choice import ModelChoice, ModelKind
    >>> load_backend(ModelChoice(ModelKind.SCRIPTED, "/no/such.jsonl"))
    Traceback (most recent call last):
    ...
    FileNotFoundError: responses file not found: /no/such.jsonl

"""

from __future__ import annotations

import logging

import streamlit as st

from llenvs.core.backend import ModelBackend
from llenvs.ui.browser_session import in_app
from llenvs.workbench.model_choice import ModelChoice, ModelKind
from llenvs.workbench.model_pool import PoolKey, max_models, pool_spec, shared_pool

__all__ = ["load_backend"]

LOGGER = logging.getLogger(__name__)


def load_backend(choice: ModelChoice, api_key: str | None = None) -> ModelBackend:
    """The backend of ``choice``: a model of the shared pool, or a fresh scripted one.

    ``api_key`` is a key typed for this session (an OpenAI-compatible server): it goes to the
    backend and nowhere else; the pool keys the backend by its SHA-256 digest, so a backend
    made with one key serves only the sessions that typed that key.

    Example:
        >>> load_backend(ModelChoice(ModelKind.SCRIPTED, "/no/such.jsonl"))
        Traceback (most recent call last):
        ...
        FileNotFoundError: responses file not found: /no/such.jsonl

    """
    from llenvs.inference import build_backend

    spec = pool_spec(choice)
    if choice.kind is ModelKind.SCRIPTED:
        return build_backend(spec)
    key = api_key if choice.kind is ModelKind.OPENAI else None
    bound = max_models()

    def load() -> ModelBackend:
        if not in_app():
            return build_backend(spec, api_key=key, progress=False)
        with st.spinner("Loading the model (once, shared by every session)…"):
            return build_backend(spec, api_key=key, progress=False)

    backend = shared_pool().get(PoolKey.typed(spec, key), load, bound)
    if shared_pool().over_bound(bound):
        _say_over_bound(bound)
    return backend


def _say_over_bound(bound: int) -> None:
    """Tell the page (in the app) and the log that jobs hold more models than the bound."""
    loaded = len(shared_pool().loaded())
    message = (
        f"{loaded} models are loaded, above the bound of {bound}: running jobs hold them, "
        "and the least recently used is dropped as soon as its job ends."
    )
    LOGGER.warning(message)
    if in_app():
        st.toast(message, icon=":material/memory:")
