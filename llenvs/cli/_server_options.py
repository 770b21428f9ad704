"""Options for a model behind an OpenAI-compatible server: ``--base-url``, ``--mode``, ...

``llenvs evaluate --backend openai/<model> --base-url http://host:8000/v1`` reaches a vLLM (or other
OpenAI-compatible) server. A trace records these options (never the key), so ``llenvs intervene``
on it reaches the same server unless told otherwise.

Example:
    >>> parser = argparse.ArgumentParser()
    >>> add_server_options(parser)
    >>> args = parser.parse_args(["--base-url", "http://h:8000/v1", "--mode", "chat"])
    >>> server_options(args, "openai/m")
    {'base_url': 'http://h:8000/v1', 'mode': 'chat'}

"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from llenvs.cli._options import given_options
from llenvs.core import ModelBackend
from llenvs.core.run_spec import ModelSpec, Provider

__all__ = ["SERVER_OPTIONS", "add_server_options", "recorded_backend", "server_options"]

SERVER_OPTIONS = {
    "base_url": "--base-url",
    "mode": "--mode",
    "tokenizer": "--tokenizer",
    "api_key_env": "--api-key-env",
    "max_in_flight": "--max-in-flight",
}
"""``get_backend`` keyword of each option, and its flag."""


def add_server_options(parser: argparse.ArgumentParser) -> None:
    """Add the server options (for ``--backend openai/<model>``) to ``parser``.

    Example:
        >>> parser = argparse.ArgumentParser()
        >>> add_server_options(parser)
        >>> parser.parse_args([]).mode is None
        True

    """
    group = parser.add_argument_group("OpenAI-compatible server (--backend openai/<model>)")
    group.add_argument("--base-url", help="the server's URL, e.g. http://127.0.0.1:8000/v1")
    group.add_argument(
        "--mode",
        choices=("completions", "chat"),
        help="completions: token-id prompts, faithful continuation (vLLM; the default); "
        "chat: chat messages (hosted APIs)",
    )
    group.add_argument(
        "--tokenizer",
        help="the model's tokenizer for the chat template and token ids: a local folder or a "
        "cached hub id (default: the model name)",
    )
    group.add_argument(
        "--api-key-env",
        help="the environment variable holding the API key (default: OPENAI_API_KEY; vLLM "
        "needs none)",
    )
    group.add_argument(
        "--max-in-flight", type=int, help="most requests in flight at once (default: 32)"
    )


def server_options(
    args: argparse.Namespace, backend: str, recorded: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The ``get_backend`` options for ``backend``: ``recorded`` ones, overridden by flags.

    Flags given for a backend that is not ``openai/...`` are refused.

    Example:
        >>> ns = argparse.Namespace(base_url=None, mode=None, tokenizer="t", api_key_env=None,
        ...                         max_in_flight=None)
        >>> server_options(ns, "openai/m", {"base_url": "http://h/v1", "mode": "chat"})
        {'base_url': 'http://h/v1', 'mode': 'chat', 'tokenizer': 't'}
        >>> server_options(ns, "transformers")
        Traceback (most recent call last):
        ...
        ValueError: --tokenizer is for --backend openai/<model>, not 'transformers'

    """
    given = given_options(args, {key: key for key in SERVER_OPTIONS})
    if ModelSpec.parse(backend).provider is not Provider.OPENAI:
        if given:
            flags = ", ".join(SERVER_OPTIONS[key] for key in given)
            raise ValueError(f"{flags} is for --backend openai/<model>, not {backend!r}")
        return {}
    return {**dict(recorded or {}), **given}


def recorded_backend(
    args: argparse.Namespace, recorded: ModelSpec | None, *, progress: bool = True
) -> ModelBackend:
    """The model a command on a trace generates with: ``--backend``, else the trace's own.

    The trace's own model (``run.spec.model``, or ``--backend`` naming it) is built as
    recorded, in its recorded precision, with server flags overriding its recorded server
    options; another ``--backend`` is built by name. ``--responses`` plays a file (scripted).

    Example:
        >>> ns = argparse.Namespace(backend=None, responses=None, base_url=None, mode=None,
        ...                         tokenizer=None, api_key_env=None, max_in_flight=None)
        >>> recorded_backend(ns, None)
        Traceback (most recent call last):
        ...
        ValueError: the trace records no model: give --backend

    """
    from llenvs.cli._model_options import build_backend
    from llenvs.inference import build_backend as build

    name = args.backend or (None if recorded is None else recorded.name)
    if name is None:
        raise ValueError("the trace records no model: give --backend")
    own = (
        recorded
        if recorded is not None and name in (recorded.name, recorded.recorded_name)
        else None
    )
    if own is not None and own.provider not in (Provider.OPENAI, Provider.SCRIPTED):
        server_options(args, name)  # refuses server flags for a local model
        if args.responses is None:
            return build(own, progress=progress)
    options = server_options(args, name, None if own is None else own.options)
    return build_backend(name, args.responses, progress=progress, options=options)
