r"""Options the CLI commands share, and the environment they build (its segmenter and PRM).

The options of the model and its sampling, and the backend they build, are ``_model_options``'s.

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
import json
from collections.abc import Callable, Mapping
from typing import Any

from llenvs.core import (
    DATASET_SIZE,
    SEED,
    Bound,
    Environment,
    ModelBackend,
    SegmentedEnvironment,
)
from llenvs.core.errors import LlenvsError, OutOfBoundsError, UnknownName
from llenvs.core.registry import environment_registry
from llenvs.core.run_spec import PRMKind, PRMSpec
from llenvs.core.segmenters import segmenter_from_spec
from llenvs.evaluation.branching import scored_environment
from llenvs.inference import NO_RESPONSE, read_responses

__all__ = [
    "ENVIRONMENT_HINT",
    "NO_RESPONSE",
    "add_environment_options",
    "add_step_options",
    "bounded",
    "build_base_environment",
    "build_environment",
    "count",
    "environment_kwargs",
    "fraction",
    "given_options",
    "positive_int",
    "prm_options",
    "read_responses",
]

ENVIRONMENT_HINT = "--list-envs lists them all"
"""How an unknown environment's error says to see every name."""


def positive_int(text: str) -> int:
    """An argparse ``type``: an integer > 0, refused while the arguments are parsed.

    Example:
        >>> positive_int("3")
        3
        >>> positive_int("0")
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: must be > 0, got 0

    """
    value = _integer(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {value}")
    return value


def count(text: str) -> int:
    """An argparse ``type``: an integer >= 0.

    Example:
        >>> count("3")
        3
        >>> count("-1")
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: must be an integer >= 0, got '-1'

    """
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}")
    return value


def fraction(text: str) -> float:
    """An argparse ``type``: a number in (0, 1] (a move's size, a similarity asked for).

    Example:
        >>> fraction("0.2")
        0.2
        >>> fraction("0")
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: expected a number in (0, 1], got 0

    """
    try:
        size = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text!r}") from None
    if not 0 < size <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text}")
    return size


def bounded(bound: Bound) -> Callable[[str], int]:
    """An argparse ``type``: an integer in ``bound``, refused while the arguments are parsed.

    The message is the bound's own (``llenvs.core``): the workbench says the same.

    Example:
        >>> from llenvs.core import MAX_TOKENS
        >>> bounded(MAX_TOKENS)("64")
        64
        >>> bounded(MAX_TOKENS)("99999999")
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: must be 1..131072 (the longest context of the models llenvs runs), got 99999999

    """  # noqa: E501

    def parse(text: str) -> int:
        value = _integer(text)
        try:
            return bound.check(value)
        except OutOfBoundsError as error:
            raise argparse.ArgumentTypeError(f"{error.bound}, got {value}") from None

    parse.__name__ = bound.name  # argparse names the type in some messages
    return parse


def _integer(text: str) -> int:
    """``text`` as an integer, else refused the way argparse refuses a value of the wrong type."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None


def given_options(args: argparse.Namespace, fields: Mapping[str, str]) -> dict[str, Any]:
    """The options of ``fields`` given on the command line (not None), by the field each sets.

    An option the parser does not have counts as not given.

    Example:
        >>> given_options(argparse.Namespace(sampling_seed=3, top_p=None),
        ...               {"sampling_seed": "seed", "top_p": "top_p", "mode": "mode"})
        {'seed': 3}

    """
    return {
        field: getattr(args, option)
        for option, field in fields.items()
        if getattr(args, option, None) is not None
    }


def add_environment_options(parser: argparse.ArgumentParser) -> None:
    """``--env``, ``--adapter``, ``--size``, ``--seed``, ``--option``, ``--segmenter``, ``--prm``.

    ``--list-envs`` prints the environment names of the adapter (given before it, else
    reasoning_gym), one per line, and exits.

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
    group.add_argument(
        "--list-envs",
        nargs=0,
        action=_ListEnvironments,
        help="print the environment names of --adapter (given before it) and exit",
    )
    group.add_argument(
        "--size",
        type=bounded(DATASET_SIZE),
        help=f"number of tasks to make, 1..{DATASET_SIZE.high} (reasoning_gym default: 500)",
    )
    group.add_argument("--seed", type=bounded(SEED), help="seed of the tasks (reasoning_gym)")
    group.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="more adapter options; VALUE is read as JSON when it parses, else as text",
    )
    add_step_options(
        group,
        segmenter_help="segmenter spec: steps, sentence, line:\\n\\n, …",
        prm_help="a PRM scoring every step: arithmetic, transformers/<path>, mc (evaluate: "
        "Monte-Carlo step values, rollouts of --backend), judge (--backend judges each step), "
        "judge:<backend> (e.g. judge:transformers, the embedded model), vllm/<model> (a PRM "
        "a vLLM server serves: see --prm-base-url)",
    )


def add_step_options(
    container: argparse.ArgumentParser | argparse._ArgumentGroup,
    *,
    segmenter_help: str,
    prm_help: str,
) -> None:
    """``--segmenter`` (default ``steps``), ``--prm`` and ``--prm-base-url``: cut, then score.

    The help is each command's own: what a command's ``--prm`` can name depends on whether
    it has a model (``judge`` and ``mc`` need one).

    Example:
        >>> parser = argparse.ArgumentParser()
        >>> add_step_options(parser, segmenter_help="how to cut", prm_help="what scores")
        >>> args = parser.parse_args(["--prm-base-url", "http://h:8000/v1"])
        >>> args.segmenter, args.prm, args.prm_base_url
        ('steps', None, 'http://h:8000/v1')

    """
    container.add_argument("--segmenter", default="steps", help=segmenter_help)
    container.add_argument("--prm", help=prm_help)
    container.add_argument("--prm-base-url", metavar="URL", help=PRM_BASE_URL_HELP)


class _ListEnvironments(argparse.Action):
    """``--list-envs``: print the adapter's environment names and exit (like ``--help``)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        try:
            names = environment_registry.environment_names(namespace.adapter)
        except (LlenvsError, ValueError) as error:
            parser.exit(2, f"{parser.prog}: error: {error}\n")
        print("\n".join(names))
        parser.exit(0)


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


PRM_BASE_URL_HELP = (
    "the vLLM server of --prm vllm/<model>, e.g. http://127.0.0.1:8000/v1 (default: "
    "$LLENVS_PRM_BASE_URL if you set it, else that URL)"
)
"""``--prm-base-url``'s help (evaluate, replay and intervene)."""


def prm_options(prm: str | None, url: str | None) -> dict[str, Any]:
    """``get_prm``'s options from ``--prm-base-url``: the server ``--prm vllm/<model>`` reaches.

    They travel with the PRM's name (``scored_environment``, ``intervene``); nothing is put in
    the process's environment.

    Example:
        >>> prm_options("vllm/m", "http://h:8000/v1"), prm_options("arithmetic", None)
        ({'base_url': 'http://h:8000/v1'}, {})
        >>> prm_options("arithmetic", "http://h:8000/v1")
        Traceback (most recent call last):
        ...
        ValueError: --prm-base-url is for --prm vllm/<model>, not 'arithmetic'

    """
    if url is None:
        return {}
    if PRMSpec.parse(prm).kind is not PRMKind.VLLM:
        raise ValueError(f"--prm-base-url is for --prm vllm/<model>, not {prm!r}")
    return {"base_url": url}


def build_environment(
    args: argparse.Namespace, backend: ModelBackend | None = None
) -> SegmentedEnvironment:
    """The segmented environment the options describe (with the PRM's reward when asked).

    ``backend`` is the model an ``llm`` segmenter asks (and that ``--prm judge`` and ``mc``
    use); ``--prm-base-url`` goes to the PRM (``prm_options``).

    Example:
        >>> args = argparse.Namespace(env="leg_counting", adapter="reasoning_gym", size=5,
        ...                           seed=None, option=[], segmenter="line", prm="arithmetic")
        >>> env = build_environment(args)
        >>> len(env), env.segmenter.spec, [f.name for f in env.reward_functions]
        (5, 'line', ['prm', 'correctness', 'format'])

    """
    options = prm_options(args.prm, getattr(args, "prm_base_url", None))
    base = build_base_environment(args)
    segmenter = segmenter_from_spec(args.segmenter, backend=backend)
    return scored_environment(base, segmenter, args.prm, backend, options)


def build_base_environment(args: argparse.Namespace) -> Environment:
    """The base environment of ``--env``, ``--adapter`` and the adapter options.

    An unknown environment's error offers close names and says how to list them all.

    Example:
        >>> args = argparse.Namespace(env="leg_countin", adapter="reasoning_gym", size=None,
        ...                           seed=None, option=[])
        >>> build_base_environment(args)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.core.errors.UnknownName: unknown ... 'leg_countin': did you mean leg_counting, ...

    """
    try:
        return environment_registry.get(
            name=args.env, adapter=args.adapter, **environment_kwargs(args)
        )
    except UnknownName as error:
        if error.name != args.env:
            raise
        raise UnknownName(error.kind, error.name, error.choices, hint=ENVIRONMENT_HINT) from None
