"""Which model generates a branch in the workbench, and the loaded model shared by sessions.

The trace's own model when it can be loaded here (the embedded model for the sample traces, a
``transformers/<folder>`` that exists), else the user's choice: the embedded model, a local
transformers folder, or the scripted backend playing a responses file. A transformers model
loads once per process and is shared by every browser session (``st.cache_resource``); the
backend serves one call at a time, so sessions sharing it get separate, correct results.

Example:
    >>> own_model("transformers/SmolLM2-135M-Instruct"), own_model("scripted")
    ('transformers', None)

"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import streamlit as st

from llenvs.core.backend import ModelBackend
from llenvs.inference.backends.embedded_model import EMBEDDED_MODEL_NAME

__all__ = ["ModelChoice", "ModelKind", "load_backend", "own_model"]


class ModelKind(Enum):
    """Where a branch's model comes from."""

    EMBEDDED = "the embedded SmolLM2-135M-Instruct"
    """The model that ships with llenvs (``transformers``)."""
    FOLDER = "a local transformers folder"
    """Any causal LM in a local folder (``transformers/<folder>``)."""
    SCRIPTED = "the scripted backend (a responses file)"
    """Canned responses, played in order (for demonstrations and tests)."""


@dataclass(frozen=True)
class ModelChoice:
    """A model to generate with.

    Example:
        >>> ModelChoice(ModelKind.FOLDER, "/models/x").backend_name
        'transformers//models/x'

    """

    kind: ModelKind
    """Where it comes from."""
    location: str = ""
    """The folder (FOLDER) or the responses file (SCRIPTED); empty for the embedded model."""

    @property
    def backend_name(self) -> str:
        """The name ``get_backend`` takes."""
        if self.kind is ModelKind.EMBEDDED:
            return "transformers"
        if self.kind is ModelKind.FOLDER:
            return f"transformers/{self.location}"
        return "scripted"


def own_model(model: str | None) -> str | None:
    """The backend name of a trace's model when it can be loaded here, else None.

    Example:
        >>> own_model(None), own_model("transformers/no/such/folder")
        (None, None)

    """
    if model is None:
        return None
    family, _, rest = model.partition("/")
    if family != "transformers":
        return None
    if rest in ("", EMBEDDED_MODEL_NAME):
        return "transformers"
    return model if os.path.isdir(rest) else None


@st.cache_resource(show_spinner="Loading the model (once, shared by every session)…")
def _shared_backend(name: str) -> ModelBackend:
    from llenvs.inference import get_backend

    backend: ModelBackend = get_backend(name, progress=False)
    return backend


def load_backend(choice: ModelChoice) -> ModelBackend:
    """The backend of ``choice``: a shared transformers model, or a fresh scripted one.

    Example:
        >>> load_backend(ModelChoice(ModelKind.SCRIPTED, "/no/such.jsonl"))
        Traceback (most recent call last):
        ...
        FileNotFoundError: responses file not found: /no/such.jsonl

    """
    if choice.kind is ModelKind.SCRIPTED:
        from llenvs.inference import get_backend
        from llenvs.traces.responses_file import read_responses

        if not os.path.isfile(choice.location):
            raise FileNotFoundError(f"responses file not found: {choice.location}")
        outputs = [text for _, text in read_responses(Path(choice.location))]
        if not outputs:
            raise ValueError(f"{choice.location} holds no response")
        scripted: ModelBackend = get_backend("scripted", outputs=outputs)
        return scripted
    return _shared_backend(choice.backend_name)
