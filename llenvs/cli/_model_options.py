"""Options that choose the model and how it samples, and the backend they build.

``--backend`` and ``--responses`` (the scripted backend's file) name the model; ``--max-tokens``,
``--temperature``, ``--top-p`` and ``--sampling-seed`` change its ``SamplingParams``.

Example:
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_backend_options(parser, DEFAULT_BACKEND)
    >>> add_sampling_options(parser)
    >>> args = parser.parse_args(["--temperature", "0.7"])
    >>> args.backend, sampling_params(args).temperature
    ('transformers', 0.7)

"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from llenvs.cli._options import bounded, given_options
from llenvs.core import DEFAULT_MAX_TOKENS, MAX_TOKENS, SEED, ModelBackend, SamplingParams
from llenvs.core.run_spec import ModelSpec, Provider

__all__ = [
    "DEFAULT_BACKEND",
    "add_backend_options",
    "add_sampling_options",
    "build_backend",
    "check_backend_options",
    "sampling_params",
]

DEFAULT_BACKEND = "transformers"
"""The embedded SmolLM2-135M-Instruct: runs anywhere, no account, no GPU."""

_SAMPLING_OPTIONS = {
    "max_tokens": "max_tokens",
    "temperature": "temperature",
    "top_p": "top_p",
    "sampling_seed": "seed",
}
"""The ``SamplingParams`` field each sampling option sets."""


def add_backend_options(parser: argparse.ArgumentParser, default: str | None) -> None:
    """``--backend`` (``default`` when not given) and ``--responses`` for the scripted one.

    Example:
        >>> parser = argparse.ArgumentParser()
        >>> add_backend_options(parser, DEFAULT_BACKEND)
        >>> parser.parse_args([]).backend
        'transformers'

    """
    group = parser.add_argument_group("model")
    group.add_argument(
        "--backend",
        default=default,
        help=f"backend name: transformers (the embedded model), transformers/<path>, "
        f"openai/<model> (an OpenAI-compatible server: see --base-url), scripted "
        f"(default: {default or 'the one that made the trace'})",
    )
    group.add_argument(
        "--responses",
        type=Path,
        help="for --backend scripted: a JSONL file of responses (strings, or objects with "
        "'response' and optionally 'task_index'). evaluate: line i answers task i, unless it "
        "names its task_index; intervene: one per conversation, in order",
    )


def check_backend_options(name: str, responses: Path | None) -> ModelSpec:
    """The spec of ``--backend``; one that cannot work with ``--responses`` is refused.

    Nothing is built: a wrong name or option fails before a model loads.

    Example:
        >>> check_backend_options("scripted", None)
        Traceback (most recent call last):
        ...
        ValueError: --backend scripted needs --responses FILE (one response per line)
        >>> check_backend_options("nope/x", None)
        Traceback (most recent call last):
        ...
        llenvs.core.errors.UnknownName: unknown backend 'nope': choose one of: openai, scripted, transformers

    """  # noqa: E501
    spec = ModelSpec.parse(name)
    if spec.provider is Provider.SCRIPTED and responses is None:
        raise ValueError("--backend scripted needs --responses FILE (one response per line)")
    if spec.provider is not Provider.SCRIPTED and responses is not None:
        raise ValueError(f"--responses is for --backend scripted, not {name!r}")
    return spec


def build_backend(
    name: str,
    responses: Path | None,
    *,
    progress: bool = True,
    options: Mapping[str, Any] | None = None,
) -> ModelBackend:
    """The backend called ``name``; the scripted one plays the ``responses`` file in order.

    ``progress=False`` silences a local model's loading bars; ``options`` go to an openai
    backend (``server_options``: its URL, mode, tokenizer).

    Example:
        >>> build_backend("scripted", None)
        Traceback (most recent call last):
        ...
        ValueError: --backend scripted needs --responses FILE (one response per line)

    """
    from llenvs.inference import build_backend as build

    spec = check_backend_options(name, responses)
    if responses is not None:
        spec = ModelSpec.parse(name, responses=str(responses))
    elif spec.provider is Provider.OPENAI:
        spec = ModelSpec.parse(name, **dict(options or {}))
    return build(spec, progress=progress)


def add_sampling_options(parser: argparse.ArgumentParser) -> None:
    """``--max-tokens``, ``--temperature``, ``--top-p``, ``--sampling-seed``.

    Example:
        >>> parser = argparse.ArgumentParser()
        >>> add_sampling_options(parser)
        >>> sampling_params(parser.parse_args(["--max-tokens", "64"])).max_tokens
        64

    """
    group = parser.add_argument_group("sampling")
    group.add_argument(
        "--max-tokens",
        type=bounded(MAX_TOKENS),
        help=f"token budget per trajectory, 1..{MAX_TOKENS.high} (default: {DEFAULT_MAX_TOKENS}; "
        "intervene: the trace's own)",
    )
    group.add_argument("--temperature", type=float, help="0 for greedy (the default)")
    group.add_argument("--top-p", type=float, help="nucleus sampling mass")
    group.add_argument("--sampling-seed", type=bounded(SEED), help="seed of the sampler")


def sampling_params(args: argparse.Namespace, base: SamplingParams | None = None) -> SamplingParams:
    """``base`` (default: ``SamplingParams()``) with the options given on the command line.

    Example:
        >>> ns = argparse.Namespace(max_tokens=None, temperature=0.7, top_p=None,
        ...                         sampling_seed=1)
        >>> p = sampling_params(ns)
        >>> p.max_tokens, p.temperature, p.seed
        (256, 0.7, 1)

    """
    return dataclasses.replace(base or SamplingParams(), **given_options(args, _SAMPLING_OPTIONS))
