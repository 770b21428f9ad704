"""PRMs by name, for the CLI and the app: ``"arithmetic"``, ``"mc"``, ``"transformers/<path>"``.

``"mc"`` (the Monte-Carlo PRM) lives above this layer, in ``llenvs.analysis``, because it runs
the runner: it is named here by module path and imported only when asked for, as the
environment registry names its adapters.

Example:
    >>> get_prm("arithmetic")
    ArithmeticPRM(neutral=0.5)
    >>> get_prm("nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llenvs.core.errors.UnknownName: unknown prm 'nope': choose one of: arithmetic, mc, ...

"""

from __future__ import annotations

import importlib
from typing import Any

from llenvs.core.errors import UnknownName
from llenvs.core.reward_function import RewardFunction
from llenvs.rewards.arithmetic_prm import ArithmeticPRM
from llenvs.rewards.prm import PRM
from llenvs.rewards.prm_conventions import CONVENTIONS

__all__ = ["PRM_NAMES", "get_prm", "prm_rewards"]

PRM_NAMES: tuple[str, ...] = ("arithmetic", "mc", "transformers/<local path>")
"""The names ``get_prm`` knows (``<local path>``: a checkpoint folder)."""

_LAZY: dict[str, str] = {"mc": "llenvs.analysis.monte_carlo_prm:make_prm"}
"""PRMs made by a factory named by ``"module:function"``, imported when first asked for."""


def get_prm(name: str, **options: Any) -> PRM:
    """The PRM called ``name``; ``options`` go to its constructor.

    ``"transformers/<local path>"`` needs ``convention=`` (``"qwen2.5-math-prm"`` or
    ``"math-shepherd"``, or a convention object) and loads the folder with
    ``TransformersPRM.from_pretrained`` (torch and transformers are imported then, not before).
    ``"mc"`` needs ``backend=`` and ``environment=`` (``MonteCarloPRM``).

    Example:
        >>> get_prm("arithmetic", neutral=1.0).score_steps("q", ["No arithmetic."])
        [1.0]
        >>> get_prm("transformers/some/folder")
        Traceback (most recent call last):
        ...
        ValueError: transformers PRMs need convention=: one of math-shepherd, qwen2.5-math-prm

    """
    if name == "arithmetic":
        return ArithmeticPRM(**options)
    if name in _LAZY:
        module, _, factory = _LAZY[name].partition(":")
        prm: PRM = getattr(importlib.import_module(module), factory)(**options)
        return prm
    kind, _, path = name.partition("/")
    if kind == "transformers" and path:
        if "convention" not in options:
            raise ValueError(
                f"transformers PRMs need convention=: one of {', '.join(sorted(CONVENTIONS))}"
            )
        from llenvs.rewards.transformers_prm import TransformersPRM

        return TransformersPRM.from_pretrained(path, **options)
    raise UnknownName("prm", name, PRM_NAMES)


def prm_rewards(name: str | None, **options: Any) -> tuple[RewardFunction, ...]:
    """The PROCESS reward of the PRM called ``name`` (a ``PRMRewardFunction``), none for None.

    ``options`` go to ``get_prm`` (``"mc"`` needs ``backend=`` and ``environment=``).

    Example:
        >>> [f.name for f in prm_rewards("arithmetic")], prm_rewards(None)
        (['prm'], ())

    """
    if name is None:
        return ()
    from llenvs.rewards.prm_reward_function import PRMRewardFunction

    return (PRMRewardFunction(get_prm(name, **options)),)
