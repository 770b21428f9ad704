"""Which model generates a branch in the workbench.

The trace's own model when it can be reached here (the embedded model for the sample traces,
a ``transformers/<folder>`` that exists, an ``openai/<model>`` whose server URL the trace
records), else the user's choice: the embedded model, a local transformers folder, an
OpenAI-compatible server (vLLM, SGLang, a hosted API), or the scripted backend playing a
responses file. The loaded models, shared by every browser session, are ``model_pool``'s. An
API key is read from the environment variable the user names; it is never shown nor stored.

Example:
    >>> own_model(ModelSpec.parse("transformers/SmolLM2-135M-Instruct")).name
    'transformers'
    >>> own_model(ModelSpec.parse("scripted")) is None
    True
    >>> own_model(ModelSpec.parse("openai/smollm2", base_url="http://127.0.0.1:8000/v1")).name
    'openai/smollm2'

"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import Enum

from llenvs.core.run_spec import ModelSpec, Provider

__all__ = ["ModelChoice", "ModelKind", "own_model"]


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
    ``api_key_env``; EMBEDDED and FOLDER: ``dtype``, a recorded precision), as sorted pairs so
    that a choice can key the shared cache."""

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
            >>> ModelChoice.of_spec(ModelSpec.parse("transformers", dtype="float32")).options
            (('dtype', 'float32'),)

        """
        if spec.provider is Provider.EMBEDDED:
            return cls(ModelKind.EMBEDDED, options=tuple(sorted(spec.options.items())))
        if spec.provider is Provider.TRANSFORMERS:
            return cls(ModelKind.FOLDER, spec.model, tuple(sorted(spec.options.items())))
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
            return ModelSpec(Provider.EMBEDDED, dtype=dict(self.options).get("dtype"))
        if self.kind is ModelKind.FOLDER:
            dtype = dict(self.options).get("dtype")
            return ModelSpec(Provider.TRANSFORMERS, self.location, dtype=dtype)
        if self.kind is ModelKind.OPENAI:
            return ModelSpec.parse(f"openai/{self.location}", **dict(self.options))
        return ModelSpec(Provider.SCRIPTED, responses=self.location)


def own_model(spec: ModelSpec | None) -> ModelSpec | None:
    """A trace's recorded model (``run.spec.model``) when it can be reached here, else None.

    An ``openai/<model>`` is reachable when the spec holds the server's URL, a
    ``transformers/<folder>`` when the folder is here; the embedded model always is; the
    scripted backend never is (its responses are not recorded).

    Example:
        >>> own_model(None), own_model(ModelSpec.parse("transformers/no/such/folder"))
        (None, None)
        >>> own_model(ModelSpec.parse("openai/m")) is None
        True

    """
    if spec is None:
        return None
    if spec.provider is Provider.OPENAI:
        return spec if spec.base_url else None
    if spec.provider is Provider.EMBEDDED:
        return spec
    if spec.provider is Provider.TRANSFORMERS:
        return spec if os.path.isdir(spec.model) else None
    return None
