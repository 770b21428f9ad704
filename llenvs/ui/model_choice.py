"""Which model generates a branch in the workbench, and the loaded model shared by sessions.

The trace's own model when it can be reached here (the embedded model for the sample traces,
a ``transformers/<folder>`` that exists, an ``openai/<model>`` whose server URL the trace
records), else the user's choice: the embedded model, a local transformers folder, an
OpenAI-compatible server (vLLM, SGLang, a hosted API), or the scripted backend playing a
responses file. A model loads once per process and is shared by every browser session
(``st.cache_resource``); the transformers backend serves one call at a time and the openai one
keeps its requests apart, so sessions sharing a model get separate, correct results. An API
key is read from the environment variable the user names; it is never shown nor stored.

Example:
    >>> own_model("transformers/SmolLM2-135M-Instruct"), own_model("scripted")
    ('transformers', None)
    >>> own_model("openai/smollm2", {"base_url": "http://127.0.0.1:8000/v1"})
    'openai/smollm2'

"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

import streamlit as st

from llenvs.core.backend import ModelBackend
from llenvs.core.errors import UnknownName
from llenvs.core.spec.model_spec import ModelSpec, Provider

__all__ = ["ModelChoice", "ModelKind", "load_backend", "own_model"]


class ModelKind(Enum):
    """Where a branch's model comes from."""

    EMBEDDED = "the embedded SmolLM2-135M-Instruct"
    """The model that ships with llenvs (``transformers``)."""
    FOLDER = "a local transformers folder"
    """Any causal LM in a local folder (``transformers/<folder>``)."""
    OPENAI = "an OpenAI-compatible server (vLLM, SGLang, a hosted API)"
    """A model behind ``/v1/completions`` or ``/v1/chat/completions`` (``openai/<model>``)."""
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
    """The folder (FOLDER), the served model's name (OPENAI) or the responses file (SCRIPTED);
    empty for the embedded model."""
    options: tuple[tuple[str, str], ...] = ()
    """``get_backend`` options (OPENAI: ``base_url``, ``mode``, ``tokenizer``,
    ``api_key_env``), as sorted pairs so that a choice can key the shared cache."""

    @property
    def backend_name(self) -> str:
        """The name ``get_backend`` takes."""
        return self.model_spec().name

    @classmethod
    def of_spec(cls, spec: ModelSpec) -> ModelChoice:
        """The choice that names ``spec``'s model (a trace's recorded one, say).

        Example:
            >>> spec = ModelSpec.parse("openai/m", base_url="http://127.0.0.1:8000/v1")
            >>> ModelChoice.of_spec(spec).model_spec() == spec
            True
            >>> ModelChoice.of_spec(ModelSpec.parse("transformers")).kind
            <ModelKind.EMBEDDED: 'the embedded SmolLM2-135M-Instruct'>

        """
        if spec.provider is Provider.EMBEDDED:
            return cls(ModelKind.EMBEDDED)
        if spec.provider is Provider.TRANSFORMERS:
            return cls(ModelKind.FOLDER, spec.model)
        if spec.provider is Provider.OPENAI:
            return cls(ModelKind.OPENAI, spec.model, tuple(sorted(spec.options.items())))
        return cls(ModelKind.SCRIPTED, spec.responses or "")

    def model_spec(self) -> ModelSpec:
        """The model this choice names, with its options (a scripted one: its responses file).

        Example:
            >>> ModelChoice(ModelKind.EMBEDDED).model_spec().recorded_name
            'transformers/SmolLM2-135M-Instruct'

        """
        if self.kind is ModelKind.EMBEDDED:
            return ModelSpec(Provider.EMBEDDED)
        if self.kind is ModelKind.FOLDER:
            return ModelSpec(Provider.TRANSFORMERS, self.location)
        if self.kind is ModelKind.OPENAI:
            return ModelSpec.parse(f"openai/{self.location}", **dict(self.options))
        return ModelSpec(Provider.SCRIPTED, responses=self.location)


def own_model(model: str | None, options: Mapping[str, Any] | None = None) -> str | None:
    """The backend name of a trace's model when it can be reached here, else None.

    ``options`` are the trace's recorded backend options (``run.backend_options``): an
    ``openai/<model>`` is reachable when they hold the server's URL.

    Example:
        >>> own_model(None), own_model("transformers/no/such/folder"), own_model("openai/m")
        (None, None, None)

    """
    if model is None:
        return None
    try:
        spec = ModelSpec.parse(model)
    except (UnknownName, ValueError):
        return None
    if spec.provider is Provider.OPENAI:
        return model if (options or {}).get("base_url") else None
    if spec.provider is Provider.EMBEDDED:
        return spec.name
    if spec.provider is Provider.TRANSFORMERS:
        return model if os.path.isdir(spec.model) else None
    return None


@st.cache_resource(show_spinner="Loading the model (once, shared by every session)…")
def _shared_backend(
    name: str,
    options: tuple[tuple[str, str], ...] = (),
    key_digest: str | None = None,
    _key: str | None = None,
) -> ModelBackend:
    del key_digest  # keys the cache: one backend per typed key, the key itself not hashed
    from llenvs.inference import build_backend

    return build_backend(ModelSpec.parse(name, **dict(options)), api_key=_key, progress=False)


def load_backend(choice: ModelChoice, api_key: str | None = None) -> ModelBackend:
    """The backend of ``choice``: a shared model, or a fresh scripted one.

    ``api_key`` is a key typed for this session (an OpenAI-compatible server): it goes to the
    backend and nowhere else; the shared cache is keyed by its SHA-256 digest, so a backend
    made with one key serves only the sessions that typed that key.

    Example:
        >>> load_backend(ModelChoice(ModelKind.SCRIPTED, "/no/such.jsonl"))
        Traceback (most recent call last):
        ...
        FileNotFoundError: responses file not found: /no/such.jsonl

    """
    if choice.kind is ModelKind.SCRIPTED:
        from llenvs.inference import build_backend

        return build_backend(choice.model_spec())
    if api_key is None or choice.kind is not ModelKind.OPENAI:
        return _shared_backend(choice.backend_name, choice.options)
    digest = hashlib.sha256(api_key.encode("utf-8")).hexdigest()
    return _shared_backend(choice.backend_name, choice.options, digest, api_key)
