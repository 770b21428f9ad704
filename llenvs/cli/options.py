r"""Options the CLI commands share, and the objects they build: environment, backend, sampling.

Example:
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_environment_options(parser)
    >>> args = parser.parse_args(["--env", "leg_counting", "--size", "5", "--option", "seed=3"])
    >>> environment_kwargs(args)
    {'size': 5, 'seed': 3}

"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Any

from llenvs.core.backend import ModelBackend, SamplingParams
from llenvs.core.environment import Environment
from llenvs.core.registry import environment_registry
from llenvs.core.reward_function import RewardFunction
from llenvs.core.segmented_environment import SegmentedEnvironment
from llenvs.core.segmenters import segmenter_from_spec

__all__ = [
    "add_backend_options",
    "add_environment_options",
    "add_sampling_options",
    "build_backend",
    "build_environment",
    "environment_kwargs",
    "prm_rewards",
    "read_responses",
    "sampling_params",
]

DEFAULT_BACKEND = "transformers"
"""The embedded SmolLM2-135M-Instruct: runs anywhere, no account, no GPU."""


def add_environment_options(parser: argparse.ArgumentParser) -> None:
    """``--env``, ``--adapter``, ``--size``, ``--seed``, ``--option``, ``--segmenter``, ``--prm``.

    Example:
        >>> parser = argparse.ArgumentParser()
        >>> add_environment_options(parser)
        >>> args = parser.parse_args(["--env", "leg_counting"])
        >>> args.adapter, args.segmenter, args.prm
        ('reasoning_gym', 'steps', None)

    """
    group = parser.add_argument_group("environment")
    group.add_argument("--env", required=True, help="environment name, e.g. leg_counting")
    group.add_argument("--adapter", default="reasoning_gym", help="adapter (reasoning_gym, …)")
    group.add_argument("--size", type=int, help="number of tasks to make (reasoning_gym)")
    group.add_argument("--seed", type=int, help="seed of the tasks (reasoning_gym)")
    group.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="more adapter options; VALUE is read as JSON when it parses, else as text",
    )
    group.add_argument(
        "--segmenter", default="steps", help="segmenter spec: steps, sentence, line:\\n\\n, …"
    )
    group.add_argument("--prm", help="a PRM scoring every step: arithmetic, transformers/<path>")


def environment_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The adapter's keyword arguments from ``--size``, ``--seed`` and ``--option``.

    Example:
        >>> environment_kwargs(argparse.Namespace(size=None, seed=None, option=["x"]))
        Traceback (most recent call last):
        ...
        ValueError: --option 'x' must be KEY=VALUE

    """
    kwargs: dict[str, Any] = {}
    if args.size is not None:
        kwargs["size"] = args.size
    if args.seed is not None:
        kwargs["seed"] = args.seed
    for item in args.option:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--option {item!r} must be KEY=VALUE")
        try:
            kwargs[key] = json.loads(raw)
        except json.JSONDecodeError:
            kwargs[key] = raw
    return kwargs


def build_environment(
    args: argparse.Namespace, backend: ModelBackend | None = None
) -> SegmentedEnvironment:
    """The segmented environment the options describe (with the PRM's reward when asked).

    Example:
        >>> args = argparse.Namespace(env="leg_counting", adapter="reasoning_gym", size=5,
        ...                           seed=None, option=[], segmenter="line", prm="arithmetic")
        >>> env = build_environment(args)
        >>> len(env), env.segmenter.spec, [f.name for f in env.reward_functions]
        (5, 'line', ['prm', 'correctness', 'format'])

    """
    base: Environment = environment_registry.get(
        name=args.env, adapter=args.adapter, **environment_kwargs(args)
    )
    segmenter = segmenter_from_spec(args.segmenter, backend=backend)
    if args.prm is None:
        return SegmentedEnvironment(base, segmenter)
    rewards = (*prm_rewards(args.prm), *base.reward_functions)
    return SegmentedEnvironment(base, segmenter, reward_functions=rewards)


def prm_rewards(name: str | None) -> tuple[RewardFunction, ...]:
    """The PROCESS reward of the PRM called ``name`` (``--prm``), or none for None.

    Example:
        >>> [f.name for f in prm_rewards("arithmetic")], prm_rewards(None)
        (['prm'], ())

    """
    if name is None:
        return ()
    from llenvs.rewards import PRMRewardFunction, get_prm

    return (PRMRewardFunction(get_prm(name)),)


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
        help=f"backend name: transformers (the embedded model), transformers/<path>, scripted "
        f"(default: {default or 'the one that made the trace'})",
    )
    group.add_argument(
        "--responses",
        type=Path,
        help="for --backend scripted: a JSONL file of responses (strings, or objects with "
        "'response'), one per conversation, in order",
    )


def build_backend(name: str, responses: Path | None) -> ModelBackend:
    """The backend called ``name``; the scripted one plays the ``responses`` file.

    Example:
        >>> build_backend("scripted", None)
        Traceback (most recent call last):
        ...
        ValueError: --backend scripted needs --responses FILE (one response per line)

    """
    from llenvs.inference import get_backend

    if name == "scripted":
        if responses is None:
            raise ValueError("--backend scripted needs --responses FILE (one response per line)")
        return get_backend("scripted", outputs=[text for _, text in read_responses(responses)])
    if responses is not None:
        raise ValueError(f"--responses is for --backend scripted, not {name!r}")
    return get_backend(name)


def read_responses(path: Path) -> list[tuple[int | None, str]]:
    r"""The responses of a JSONL file: ``(task_index or None, text)`` per line.

    A line is a JSON string, or an object with ``response`` (and optionally ``task_index``).
    Blank lines are skipped; any other line is an error naming the file and line.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.jsonl"
        >>> _ = p.write_text('"One. Two."\n{"task_index": 4, "response": "Three."}\n')
        >>> read_responses(p)
        [(None, 'One. Two.'), (4, 'Three.')]

    """
    found: list[tuple[int | None, str]] = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                value = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"{where}: not JSON ({error.msg})") from None
            if isinstance(value, str):
                found.append((None, value))
            elif isinstance(value, dict) and isinstance(value.get("response"), str):
                index = value.get("task_index")
                if index is not None and (isinstance(index, bool) or not isinstance(index, int)):
                    raise ValueError(f"{where}: task_index must be an integer, got {index!r}")
                found.append((index, value["response"]))
            else:
                raise ValueError(
                    f"{where}: expected a JSON string or an object with a 'response' string"
                )
    return found


def add_sampling_options(parser: argparse.ArgumentParser) -> None:
    """``--max-tokens``, ``--temperature``, ``--top-p``, ``--sampling-seed``.

    Example:
        >>> parser = argparse.ArgumentParser()
        >>> add_sampling_options(parser)
        >>> sampling_params(parser.parse_args(["--max-tokens", "64"])).max_tokens
        64

    """
    group = parser.add_argument_group("sampling")
    group.add_argument("--max-tokens", type=int, help="token budget per trajectory")
    group.add_argument("--temperature", type=float, help="0 for greedy (the default)")
    group.add_argument("--top-p", type=float, help="nucleus sampling mass")
    group.add_argument("--sampling-seed", type=int, help="seed of the sampler")


def sampling_params(args: argparse.Namespace, base: SamplingParams | None = None) -> SamplingParams:
    """``base`` (default: 256 tokens, greedy) with the options given on the command line.

    Example:
        >>> ns = argparse.Namespace(max_tokens=None, temperature=0.7, top_p=None,
        ...                         sampling_seed=1)
        >>> p = sampling_params(ns)
        >>> p.max_tokens, p.temperature, p.seed
        (256, 0.7, 1)

    """
    changes: dict[str, Any] = {}
    for option, field in (
        ("max_tokens", "max_tokens"),
        ("temperature", "temperature"),
        ("top_p", "top_p"),
        ("sampling_seed", "seed"),
    ):
        value = getattr(args, option)
        if value is not None:
            changes[field] = value
    return dataclasses.replace(base or SamplingParams(max_tokens=256), **changes)
