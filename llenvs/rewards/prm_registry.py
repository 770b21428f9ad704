"""PRMs by name, for the CLI and the app: ``"arithmetic"``, ``"mc"``, ``"judge"`` and more.

``"mc"`` (the Monte-Carlo PRM) lives above this layer, in ``llenvs.analysis``, because it runs
the runner; this layer never imports it. The analysis layer registers it here
(``register_prm("mc", make_prm)``) when it is imported, and the command line and the workbench,
which sit above both, import it, so ``--prm mc`` works there; a library user imports
``llenvs.analysis`` first. ``"judge"`` (``JudgePRM``, which asks a model) is imported when first
asked for; ``"judge:<backend>"`` names the model too.

Example:
    >>> get_prm("arithmetic")
    ArithmeticPRM(neutral=0.5)
    >>> get_prm("nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llenvs.core.errors.UnknownName: unknown prm 'nope': choose one of: arithmetic, judge, ...

"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from llenvs.core.errors import UnknownName
from llenvs.core.reward_function import RewardFunction
from llenvs.rewards.arithmetic_prm import ArithmeticPRM
from llenvs.rewards.prm import PRM
from llenvs.rewards.prm_conventions import CONVENTIONS

__all__ = ["PRM_NAMES", "PRMFactory", "get_prm", "prm_rewards", "register_prm"]

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

PRMFactory = Callable[..., PRM]
"""What ``register_prm`` takes: called with ``get_prm``'s options, it makes the PRM."""


def _judge(**options: Any) -> PRM:
    """``JudgePRM``'s factory, imported when a judge is first asked for."""
    from llenvs.rewards.judge_prm import make_prm

    return make_prm(**options)


_FACTORIES: dict[str, PRMFactory] = {"judge": _judge}
"""The PRMs made by a factory registered by name (``"mc"`` once the analysis layer is loaded)."""

_REGISTERED_ABOVE: dict[str, str] = {
    "mc": "import llenvs.analysis first (MonteCarloPRM runs the runner, a layer above the "
    "rewards, and registers itself when imported)",
}
"""Names in ``PRM_NAMES`` that a higher layer registers, and how to get each one."""


def register_prm(name: str, factory: PRMFactory) -> None:
    """Make ``get_prm(name, **options)`` call ``factory(**options)``.

    A layer above the rewards registers the PRMs it defines (``llenvs.analysis`` registers
    ``"mc"``), so this layer never imports them. Registering a name again with the same factory
    does nothing; with another factory it is an error, as is a name ``get_prm`` spells itself.

    Example:
        >>> from llenvs.analysis.monte_carlo_prm import make_prm  # registers "mc"
        >>> register_prm("mc", make_prm)  # the same factory again: nothing changes
        >>> register_prm("mc", ArithmeticPRM)
        Traceback (most recent call last):
        ...
        ValueError: the prm 'mc' is registered already, by another factory
        >>> register_prm("judge:x", ArithmeticPRM)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: cannot register the prm 'judge:x': 'arithmetic' is built in, and ...

    """
    if name == "arithmetic" or not name or any(mark in name for mark in ":/"):
        raise ValueError(
            f"cannot register the prm {name!r}: 'arithmetic' is built in, and ':' and '/' "
            "spell judge:<backend>, transformers/<local path> and vllm/<model>"
        )
    known = _FACTORIES.setdefault(name, factory)
    if known is not factory:
        raise ValueError(f"the prm {name!r} is registered already, by another factory")


def get_prm(name: str, **options: Any) -> PRM:
    """The PRM called ``name``; ``options`` go to its constructor.

    ``"transformers/<local path>"`` needs ``convention=`` (``"qwen2.5-math-prm"`` or
    ``"math-shepherd"``, or a convention object) and loads the folder with
    ``TransformersPRM.from_pretrained`` (torch and transformers are imported then, not before).
    ``"vllm/<model>"`` is ``VllmPRM(model, base_url=...)``: a process reward model served by
    vLLM (``base_url`` defaults to ``$LLENVS_PRM_BASE_URL`` when the user set it, else
    ``DEFAULT_BASE_URL``, the local ``vllm serve``).
    ``"mc"`` needs ``backend=`` and ``environment=`` (``MonteCarloPRM``; ``llenvs.analysis``
    registers it when imported, see ``register_prm``). ``"judge"`` needs
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
    if name in _FACTORIES:
        return _FACTORIES[name](**options)
    if name in _REGISTERED_ABOVE:
        raise ValueError(f"the {name!r} PRM is not registered here: {_REGISTERED_ABOVE[name]}")
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
    raise UnknownName("prm", name, {*PRM_NAMES, *_FACTORIES})


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
