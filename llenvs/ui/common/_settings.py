"""The Settings page: default model, PRM and segmenter, models kept loaded, labeller; a key.

What is set here is saved in the traces folder (``settings_store``) and used where a page needs
a model, a PRM or a segmenter and has no better one (the intervention panel uses a trace's own
model when it can reach it). A key typed here lives in this browser session's state only.
"""

from __future__ import annotations

import os
from pathlib import Path

import streamlit as st

from llenvs.core import Bound
from llenvs.core.segmenters import segmenter_from_spec
from llenvs.ui.common._number_box import number_box
from llenvs.ui.common._prm_picker import prm_picker
from llenvs.ui.common._server_fields import MODES, mode_box, server_option, server_options
from llenvs.workbench.models import (
    MAX_MODELS_ENV,
    MAX_MODELS_LIMIT,
    ModelKind,
    Settings,
    load_settings,
    save_settings,
    shared_pool,
)

__all__ = ["SESSION_KEY", "session_key", "settings_form"]

SESSION_KEY = "llenvs-typed-api-key"
"""Where a key typed on the Settings page lives: this session's state, nowhere else."""

_KINDS: list[ModelKind] = [ModelKind.EMBEDDED, ModelKind.FOLDER, ModelKind.OPENAI]
_MODELS = Bound("models kept", 1, MAX_MODELS_LIMIT, "each holds its weights in memory")


def session_key() -> str | None:
    """The API key typed on the Settings page in this browser session, or None.

    Example:
        >>> session_key() is None  # outside a running app there is no session
        True

    """
    try:
        key = st.session_state.get(SESSION_KEY)
    except Exception:  # no session outside a running app
        return None
    return str(key) if key else None


def settings_form(folder: Path) -> None:
    """Draw the settings of the traces folder ``folder``; save them on request."""
    saved = load_settings(folder)
    st.subheader("Model")
    kind: ModelKind = st.selectbox(
        "Model that generates (evaluations, and branches of traces whose own model is out of "
        "reach)",
        _KINDS,
        index=_KINDS.index(ModelKind[saved.model.upper()]),
        format_func=lambda k: k.value,
        key="settings-model",
    )
    location, server = "", dict[str, str]()
    if kind is ModelKind.FOLDER:
        location = st.text_input("Model folder", value=saved.location, key="settings-folder")
    elif kind is ModelKind.OPENAI:
        location, server = _server(saved)
    max_models = _models_kept(saved)
    st.subheader("Scoring and segments")
    prm = prm_picker("PRM scoring new steps", "settings-prm", saved.prm_choice())
    spec = st.text_input("Segmenter spec", value=saved.segmenter, key="settings-segmenter")
    problem = _spec_problem(spec)
    if problem:
        st.error(problem, icon=":material/error:")
    st.subheader("Labelling")
    labeller = " ".join(
        st.text_input(
            "Your name as labeller",
            value=saved.labeller,
            key="settings-labeller",
            placeholder="e.g. ada",
            help="Written with every step label you give in Browse's label mode (each "
            "labeller's labels are kept apart, with their history); needed before labelling.",
        ).split()
    )
    wrong = bool(problem) or prm is None or max_models is None
    if st.button("Save settings", type="primary", key="settings-save", disabled=wrong):
        assert prm is not None and max_models is not None
        chosen = Settings(
            model=kind.name.lower(),
            location=location.strip(),
            server=server,
            prm=prm.spec,
            prm_base_url=prm.base_url or "",
            segmenter=spec,
            max_models=max_models,
            labeller=labeller,
        )
        save_settings(folder, chosen)
        st.success(f"Saved in {folder.name}/llenvs-settings.json (no key is ever saved).")


def _server(saved: Settings) -> tuple[str, dict[str, str]]:
    """An OpenAI-compatible server's settings, and the key for this session."""
    server = saved.server
    left, right = st.columns(2)
    url = server_option("Server URL", server, "base_url", "settings-url", where=left)
    model = right.text_input("Model name", value=saved.location, key="settings-served")
    left, right = st.columns(2)
    mode = mode_box(left, MODES.index(server.get("mode", "completions")), "settings-mode")
    tokenizer = server_option(
        "Tokenizer (completions mode)",
        server,
        "tokenizer",
        "settings-tokenizer",
        help="A local folder or a cached hub id (default: the model name)",
        where=right,
    )
    left, right = st.columns(2)
    variable = server_option(
        "API key variable",
        server,
        "api_key_env",
        "settings-key-env",
        default="OPENAI_API_KEY",
        help="The environment variable of the app's process that holds the key (vLLM needs none).",
        where=left,
    )
    typed = right.text_input(
        "or the key itself, for this browser session only",
        type="password",
        key="settings-key-typed",
        help="Kept in this session's memory; never saved, logged, or shown again.",
    )
    if typed:
        st.session_state[SESSION_KEY] = typed
    if session_key():
        st.caption("A key is set for this session.")
    return model, server_options(url, mode, variable, tokenizer)


def _models_kept(saved: Settings) -> int | None:
    """How many models stay loaded at once (``$LLENVS_MAX_MODELS`` wins), and which are now.

    None while the box refuses its number (it says why; Save is off).
    """
    fixed = os.environ.get(MAX_MODELS_ENV, "").strip()
    kept = number_box(
        "Models kept loaded at once (shared by every session)",
        _MODELS,
        saved.max_models,
        "settings-max-models",
        disabled=bool(fixed),
        help=f"Loading one more drops the least recently used one that no running job "
        f"uses. {MAX_MODELS_ENV}, when set, overrides this"
        + (f" (it is set: {fixed})" if fixed else ""),
    ).value
    entries = shared_pool().entries()
    if entries:
        st.caption(
            "Loaded now: "
            + "; ".join(f"{e.name}{' (in use)' if e.in_use else ''}" for e in entries)
        )
    return kept


def _spec_problem(spec: str) -> str | None:
    """Why ``spec`` is not a segmenter spec (the valid names listed), or None."""
    try:
        segmenter_from_spec(spec)
    except Exception as error:  # the spec's own message names the valid choices
        return f"{type(error).__name__}: {error}"
    return None
