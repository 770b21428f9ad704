"""Which model generates a branch: the trace's own when it is reachable, else Settings' model.

The intervention panel's model widgets: the kind (embedded, a local transformers folder, an
OpenAI-compatible server, the scripted backend), prefilled from the trace's own model spec
(``run.spec.model``: its server's URL, mode and tokenizer), or from the Settings page when the
trace's model cannot be reached here. A server's key is never asked for here: its environment
variable is, and a key typed on the Settings page lives in the session.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from llenvs.core.run_spec import Provider
from llenvs.traces import Trace
from llenvs.ui.common._server_fields import MODES, mode_box, server_option, server_options
from llenvs.workbench.files import traces_dir
from llenvs.workbench.models import ModelChoice, ModelKind, Settings, load_settings, own_model

__all__ = ["current_choice", "model_picker", "saved_settings"]

_KINDS = {
    Provider.EMBEDDED: ModelKind.EMBEDDED,
    Provider.TRANSFORMERS: ModelKind.FOLDER,
    Provider.OPENAI: ModelKind.OPENAI,
    Provider.SCRIPTED: ModelKind.SCRIPTED,
}
"""The picker's kind of each provider."""


def model_picker(trace: Trace) -> ModelChoice | None:
    """The model that generates: the trace's own when it is reachable here, else Settings'."""
    own = own_model(trace.run.spec.model)
    recorded: Mapping[str, Any]
    if own is None:
        st.caption(
            f"The trace's model ({trace.run.model_name or 'not recorded'}) cannot be reached "
            "here: choose one (the default is the one in Settings)."
        )
        saved = saved_settings()
        default, name, recorded = ModelKind[saved.model.upper()], saved.location, saved.server
    else:
        name, default, recorded = own.model, _KINDS[own.provider], own.options
    kinds = list(ModelKind)
    kind = st.selectbox(
        "Model", kinds, index=kinds.index(default), format_func=lambda k: k.value, key="iv-model"
    )
    if kind is ModelKind.EMBEDDED:
        return ModelChoice(kind)
    if kind is ModelKind.OPENAI:
        return _server_choice(name if default is kind else "", recorded)
    prompt = "Model folder" if kind is ModelKind.FOLDER else "Responses file (JSONL)"
    location = st.text_input(
        prompt, value=name if default is ModelKind.FOLDER else "", key=f"iv-{kind.name}"
    )
    return ModelChoice(kind, location.strip()) if location.strip() else None


def saved_settings() -> Settings:
    """The Settings page's choices; the defaults, with a warning, when they cannot be read."""
    try:
        return load_settings(traces_dir())
    except ValueError as error:
        st.warning(f"Settings not used: {error}")
        return Settings()


def _server_choice(model: str, recorded: Mapping[str, Any]) -> ModelChoice | None:
    """An OpenAI-compatible server: URL, model, mode; the key's variable, never the key."""
    left, right = st.columns(2)
    url = server_option("Server URL", recorded, "base_url", "iv-openai-url", where=left)
    served = right.text_input("Model name", value=model, key="iv-openai-model")
    left, right = st.columns(2)
    known = recorded.get("mode") in MODES
    mode = mode_box(left, MODES.index(recorded["mode"]) if known else 0, "iv-openai-mode")
    tokenizer = server_option(
        "Tokenizer (completions mode)",
        recorded,
        "tokenizer",
        "iv-openai-tokenizer",
        help="A local folder or a cached hub id with the model's tokenizer and chat template "
        "(default: the model name)",
        where=right,
    )
    variable = server_option(
        "API key variable",
        recorded,
        "api_key_env",
        "iv-openai-key",
        default="OPENAI_API_KEY",
        help="The environment variable of the app's process holding the key (vLLM needs "
        "none); the key itself is never shown nor written.",
    )
    return _openai_choice(url, served, mode, variable, tokenizer)


def current_choice(trace: Trace) -> ModelChoice | None:
    """The model the picker holds (its widgets' values), else the one it starts from.

    For panels drawn before the picker (Step values): the same model the intervention panel
    generates with. The start is the trace's own model when it is reachable here, else the
    Settings one; None when a choice lacks its folder, file or server.
    """
    state = st.session_state
    kind = state.get("iv-model")
    if not isinstance(kind, ModelKind):
        return _starting_choice(trace)
    if kind is ModelKind.EMBEDDED:
        return ModelChoice(kind)
    if kind is not ModelKind.OPENAI:
        location = str(state.get(f"iv-{kind.name}", "")).strip()
        return ModelChoice(kind, location) if location else None
    return _openai_choice(
        str(state.get("iv-openai-url", "")),
        str(state.get("iv-openai-model", "")),
        str(state.get("iv-openai-mode", "completions")),
        str(state.get("iv-openai-key", "")),
        str(state.get("iv-openai-tokenizer", "")),
    )


def _starting_choice(trace: Trace) -> ModelChoice | None:
    """What the picker starts from: the trace's own model if reachable, else Settings'."""
    spec = own_model(trace.run.spec.model)
    if spec is None:
        return saved_settings().choice()
    if spec.provider is Provider.OPENAI:
        return _openai_choice(
            str(spec.base_url),
            spec.model,
            spec.mode.value,
            spec.api_key_env,
            spec.tokenizer or "",
        )
    if spec.provider is Provider.TRANSFORMERS:
        return ModelChoice(ModelKind.FOLDER, spec.model)
    return ModelChoice(ModelKind.EMBEDDED)


def _openai_choice(
    url: str, served: str, mode: str, variable: str, tokenizer: str
) -> ModelChoice | None:
    """A server choice from the picker's fields (None without a URL or a model name)."""
    if not url.strip() or not served.strip():
        return None
    options = server_options(url, mode, variable, tokenizer)
    return ModelChoice(ModelKind.OPENAI, served.strip(), tuple(sorted(options.items())))
