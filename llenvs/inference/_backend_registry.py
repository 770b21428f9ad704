"""Backends from a ``ModelSpec`` (``build_backend``), or by name (``get_backend``).

``get_backend("transformers")`` is the embedded SmolLM2-135M-Instruct, ``"transformers/<folder>"``
any local causal LM. ``get_backend(name, **options)`` is ``build_backend(ModelSpec.parse(name,
**spec_options), **the_rest)``: the name format is parsed in ``ModelSpec.parse`` only, and every
backend is built here. Each provider is a factory imported on first use, so a backend's SDK
(torch, openai) is imported only by the backend that needs it.

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
from pathlib import Path
from typing import Any

from llenvs.core import ModelBackend
from llenvs.core.errors import LlenvsError
from llenvs.core.run_spec import ModelSpec, Provider

_PROVIDERS: dict[str, str] = {
    "openai": "llenvs.inference._backends.openai_backend:make_backend",
    "scripted": "llenvs.inference._backends.scripted:make_backend",
    "transformers": "llenvs.inference._backends.transformers_loading:make_backend",
}

_FACTORY = {
    Provider.EMBEDDED: "transformers",
    Provider.TRANSFORMERS: "transformers",
    Provider.OPENAI: "openai",
    Provider.SCRIPTED: "scripted",
}
"""The factory of each provider."""

NO_RESPONSE = "holds no response (one JSON string, or object with 'response', per line)"
"""What a scripted model's empty responses file is told."""


def backend_providers() -> tuple[str, ...]:
    """The provider names ``get_backend`` accepts, sorted.

    Example:
        >>> "scripted" in backend_providers()
        True

    """
    return tuple(sorted(_PROVIDERS))


def backend_options(backend: ModelBackend) -> dict[str, Any]:
    """The options that, given to ``get_backend(backend.name, ...)``, reach the same model again.

    A backend declares them as ``capabilities.rebuild_options`` (an openai server's URL, mode
    and tokenizer, never a key; a local model's precision).

    Example:
        >>> backend_options(get_backend("scripted", outputs=["a"]))
        {}

    """
    return dict(backend.capabilities.rebuild_options)


def backend_spec(backend: ModelBackend) -> ModelSpec | None:
    """The spec that builds ``backend`` again: its name with its ``rebuild_options``.

    None for a backend whose name is no spec (a test's stand-in): nothing can build it again.

    Example:
        >>> backend_spec(get_backend("scripted", outputs=["a"]))
        ModelSpec(provider=<Provider.SCRIPTED: 'scripted'>, model='', dtype=None, base_url=None, mode=<ServerMode.COMPLETIONS: 'completions'>, tokenizer=None, api_key_env='OPENAI_API_KEY', outputs=(), responses=None)
        >>> class Coin:
        ...     name, capabilities = "coin", get_backend("scripted").capabilities
        >>> backend_spec(Coin()) is None
        True

    """  # noqa: E501
    try:
        return ModelSpec.parse(backend.name, **backend_options(backend))
    except (LlenvsError, ValueError, TypeError):
        return None


def build_backend(
    spec: ModelSpec,
    *,
    api_key: str | None = None,
    progress: bool = True,
    **runtime: Any,
) -> ModelBackend:
    """The backend ``spec`` names; ``runtime`` options go to its factory as they are.

    ``api_key`` is a key typed for this session (an OpenAI-compatible server), never part of
    the spec. ``progress=False`` silences a local model's loading bars. ``runtime`` holds what
    is not part of what a run is (``device``, ``max_sessions``, ``max_in_flight``,
    ``by_prompt``...). A scripted spec's ``responses`` file is read here, in order.

    Example:
        >>> build_backend(ModelSpec.parse("scripted", outputs=["a", "b"])).outputs
        ('a', 'b')
        >>> build_backend(ModelSpec.parse("scripted", responses="/no/such.jsonl"))
        Traceback (most recent call last):
        ...
        FileNotFoundError: responses file not found: /no/such.jsonl

    """
    module_name, _, attribute = _PROVIDERS[_FACTORY[spec.provider]].partition(":")
    factory = getattr(importlib.import_module(module_name), attribute)
    options: dict[str, Any] = dict(runtime)
    if spec.provider in (Provider.EMBEDDED, Provider.TRANSFORMERS):
        options["progress"] = progress
        if spec.dtype is not None:
            options["dtype"] = spec.dtype
    if spec.provider is Provider.OPENAI:
        options.update(
            base_url=spec.base_url,
            mode=spec.mode.value,
            tokenizer=spec.tokenizer,
            api_key_env=spec.api_key_env,
        )
        if api_key is not None:
            options["api_key"] = api_key
    if spec.provider is Provider.SCRIPTED:
        outputs = spec.outputs if spec.responses is None else _responses(spec.responses)
        options.setdefault("outputs", outputs)
    backend: ModelBackend = factory(spec.model or None, **options)
    return backend


def get_backend(name: str, **kwargs: Any) -> ModelBackend:
    """``build_backend(ModelSpec.parse(name, ...))``: the spec's options from ``kwargs``.

    The options of the name's provider (``Provider.options``) make the spec; the other
    ``kwargs`` go to ``build_backend``.

    Example:
        >>> get_backend("scripted", outputs=["a", "b"]).outputs
        ('a', 'b')

    """
    provider = ModelSpec.parse(name).provider
    spec_options = {key: kwargs.pop(key) for key in provider.options if key in kwargs}
    return build_backend(ModelSpec.parse(name, **spec_options), **kwargs)


def default_precision() -> str:
    """The precision a local model loads in here when none is asked for (imports torch).

    ``"float32"`` on every CPU (``transformers_loading.default_dtype``).

    Example:
        >>> default_precision() in ("float32", "bfloat16", "float16")
        True

    """
    from llenvs.inference._backends.transformers_loading import default_dtype_name

    return default_dtype_name()


def _responses(path: str) -> tuple[str, ...]:
    """The responses of a scripted model's file, in order; a missing or empty file is refused."""
    from llenvs.inference._responses_file import read_responses

    if not Path(path).is_file():
        raise FileNotFoundError(f"responses file not found: {path}")
    outputs = tuple(text for _, text in read_responses(Path(path)))
    if not outputs:
        raise ValueError(f"{path} {NO_RESPONSE}")
    return outputs
