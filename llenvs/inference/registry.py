"""Backends by name: ``get_backend("scripted", outputs=[...])``, ``"<provider>/<model>"``.

``get_backend("transformers")`` is the embedded SmolLM2-135M-Instruct, ``"transformers/<folder>"``
any local causal LM. Each provider is a factory imported on first use, so a backend's SDK (torch,
openai) is imported only by the backend that needs it.

Example:
    >>> get_backend("scripted", outputs=["Hi."]).name
    'scripted'
    >>> get_backend("nope/x")
    Traceback (most recent call last):
    ...
    llenvs.core.errors.UnknownName: unknown backend 'nope': choose one of: openai, scripted, transformers

"""  # noqa: E501

from __future__ import annotations

import importlib
from typing import Any

from llenvs.core.backend import ModelBackend
from llenvs.core.errors import UnknownName

__all__ = ["backend_options", "backend_providers", "get_backend"]

_PROVIDERS: dict[str, str] = {
    "openai": "llenvs.inference.backends.openai_backend:make_backend",
    "scripted": "llenvs.inference.backends.scripted:make_backend",
    "transformers": "llenvs.inference.backends.transformers_loading:make_backend",
}


def backend_providers() -> tuple[str, ...]:
    """The provider names ``get_backend`` accepts, sorted.

    Example:
        >>> "scripted" in backend_providers()
        True

    """
    return tuple(sorted(_PROVIDERS))


def backend_options(backend: object) -> dict[str, Any]:
    """The options that, given to ``get_backend(backend.name, ...)``, reach the same model again.

    A backend offers them as ``rebuild_options`` (an openai server's URL, mode and tokenizer,
    never a key); local backends need none.

    Example:
        >>> backend_options(get_backend("scripted", outputs=["a"]))
        {}

    """
    options = getattr(backend, "rebuild_options", None)
    return dict(options) if isinstance(options, dict) else {}


def get_backend(name: str, **kwargs: Any) -> ModelBackend:
    """Make a backend from ``"<provider>"`` or ``"<provider>/<model>"``; kwargs go to it.

    Example:
        >>> get_backend("scripted", outputs=["a", "b"]).outputs
        ('a', 'b')

    """
    provider, _, model = name.partition("/")
    try:
        path = _PROVIDERS[provider]
    except KeyError:
        raise UnknownName("backend", provider, _PROVIDERS) from None
    module_name, _, attribute = path.partition(":")
    factory = getattr(importlib.import_module(module_name), attribute)
    backend: ModelBackend = factory(model or None, **kwargs)
    return backend
