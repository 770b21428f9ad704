"""A model for a page, from the shared pool, saying what it waits for while the model loads.

The first model action of a process loads its model: the embedded SmolLM2-135M-Instruct loads
in a few seconds (``LOAD_SECONDS``), more on its very first use, which converts the GGUF
(``CONVERT_SECONDS``; ``make install`` converts it beforehand). The page says so, with the time
spent, while it waits. A toast says when running jobs hold more models than the bound
(``llenvs.workbench.models``).

Example:
    >>> from llenvs.workbench.models._model_choice import ModelChoice, ModelKind
    >>> load_backend(ModelChoice(ModelKind.SCRIPTED, "/no/such.jsonl"))
    Traceback (most recent call last):
    ...
    FileNotFoundError: responses file not found: /no/such.jsonl

"""

from __future__ import annotations

import logging
from pathlib import PurePath

import streamlit as st

from llenvs.core import ModelBackend
from llenvs.core.run_spec import EMBEDDED_MODEL_NAME, ModelSpec, Provider
from llenvs.ui.common._browser_session import in_app
from llenvs.workbench.models import (
    ModelChoice,
    ModelKind,
    PoolKey,
    max_models,
    pool_spec,
    shared_pool,
)

__all__ = [
    "CONVERT_SECONDS",
    "LOAD_SECONDS",
    "load_backend",
    "loading_message",
]

LOGGER = logging.getLogger(__name__)

LOAD_SECONDS = 4
"""About how long the embedded model takes to load in the app's process on 2 CPU cores: torch's
and transformers' imports and the loading, 3.4 s on 2 idle cores (``bench/cold_start.py``,
docs/benchmarks.md), more on busy ones."""
CONVERT_SECONDS = 4
"""About how much longer its first use takes, converting the GGUF: 3.1 s on 2 idle cores
(``bench/cold_start.py``), more on busy ones."""


def loading_message(spec: ModelSpec) -> str:
    """What the page says while ``spec``'s model loads.

    Example:
        >>> from llenvs.core.run_spec._model_spec import ModelSpec
        >>> print(loading_message(ModelSpec.parse("transformers")))
        Loading SmolLM2-135M-Instruct, once for every session: about 4 s (about 4 s more on its first use, which converts the model)…
        >>> print(loading_message(ModelSpec.parse("transformers/models/my-llama")))
        Loading my-llama, once for every session…

    """  # noqa: E501
    if spec.provider is Provider.EMBEDDED:
        return (
            f"Loading {EMBEDDED_MODEL_NAME}, once for every session: about {LOAD_SECONDS} s "
            f"(about {CONVERT_SECONDS} s more on its first use, which converts the model)…"
        )
    name = PurePath(spec.model).name if spec.provider is Provider.TRANSFORMERS else spec.model
    return f"Loading {name or spec.recorded_name}, once for every session…"


def load_backend(choice: ModelChoice, api_key: str | None = None) -> ModelBackend:
    """The backend of ``choice``: a model of the shared pool, or a fresh scripted one.

    ``api_key`` is a key typed for this session (an OpenAI-compatible server): it goes to the
    backend and nowhere else; the pool keys the backend by its SHA-256 digest, so a backend
    made with one key serves only the sessions that typed that key. While the model loads,
    the page says what it waits for.

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
    pool, pool_key = shared_pool(), PoolKey.typed(spec, key)

    def load() -> ModelBackend:
        return build_backend(spec, api_key=key, progress=False)

    if in_app() and not pool.is_loaded(pool_key):
        with st.spinner(loading_message(spec), show_time=True):
            backend = pool.get(pool_key, load, bound)
    else:
        backend = pool.get(pool_key, load, bound)
    if pool.over_bound(bound):
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
