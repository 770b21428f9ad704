"""PRMs by name, for the CLI and the app: ``"arithmetic"``, ``"mc"``, ``"judge"`` and more.

``"mc"`` (the Monte-Carlo PRM) lives above this layer, in ``llenvs.analysis``, because it runs
the runner: it is named here by module path and imported only when asked for, as the
environment registry names its adapters. So does ``"judge"`` (``JudgePRM``, which asks a model);
``"judge:<backend>"`` names the model too.

Example:
    >>> get_prm("arithmetic")
    ArithmeticPRM(neutral=0.5)
    >>> get_prm("nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llenvs.core.errors.UnknownName: unknown prm 'nope': choose one of: arithmetic, judge, ...

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

PRM_NAMES: tuple[str, ...] = (
    "arithmetic",
    "mc",
    "judge",
    "judge:<backend>",
    "transformers/<local path>",
    "vllm/<model>",
)
"""The names ``get_prm`` knows (``<local path>``: a checkpoint folder; ``<backend>``: a name
``get_backend`` knows, such as ``transformers``, the embedded model; ``<model>``: a model a
vLLM server serves)."""

_LAZY: dict[str, str] = {
    "mc": "llenvs.analysis.monte_carlo_prm:make_prm",
    "judge": "llenvs.rewards.judge_prm:make_prm",
}
"""PRMs made by a factory named by ``"module:function"``, imported when first asked for."""


def get_prm(name: str, **options: Any) -> PRM:
    """The PRM called ``name``; ``options`` go to its constructor.

    ``"transformers/<local path>"`` needs ``convention=`` (``"qwen2.5-math-prm"`` or
    ``"math-shepherd"``, or a convention object) and loads the folder with
    ``TransformersPRM.from_pretrained`` (torch and transformers are imported then, not before).
    ``"vllm/<model>"`` is ``VllmPRM(model, base_url=...)``: a process reward model served by
    vLLM (``base_url`` defaults to ``$LLENVS_PRM_BASE_URL`` when the user set it, else
    ``DEFAULT_BASE_URL``, the local ``vllm serve``).
    ``"mc"`` needs ``backend=`` and ``environment=`` (``MonteCarloPRM``). ``"judge"`` needs
    ``backend=`` (``JudgePRM``); ``"judge:<backend name>"`` makes that backend with
    ``get_backend`` (``"judge:transformers"``: the embedded model judges).

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
    kind, colon, backend_name = name.partition(":")
    if kind == "judge" and colon:
        if not backend_name or "backend" in options:
            raise ValueError(
                f"{name!r}: give the judge's backend once, by name (judge:<backend>) or as "
                "backend= to get_prm('judge')"
            )
        from llenvs.inference import get_backend

        return get_prm("judge", backend=get_backend(backend_name), **options)
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
    if kind == "vllm" and path:
        from llenvs.rewards.vllm_prm import VllmPRM

        return VllmPRM(path, **options)
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
