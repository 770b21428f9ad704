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

The name format is parsed in ``PRMSpec.parse`` only; ``build_prm`` builds every PRM.

"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from llenvs.core import Environment, ModelBackend, RewardFunction
from llenvs.core.run_spec import PRM_NAMES, PRMKind, PRMSpec
from llenvs.rewards.prm._arithmetic import ArithmeticPRM
from llenvs.rewards.prm._contract import PRM
from llenvs.rewards.prm._conventions import CONVENTIONS

__all__ = [
    "PRM_NAMES",
    "PRMFactory",
    "build_prm",
    "build_prm_rewards",
    "get_prm",
    "prm_rewards",
    "register_prm",
]

PRMFactory = Callable[..., PRM]
"""What ``register_prm`` takes: called with ``build_prm``'s options, it makes the PRM."""

_REGISTERED_ABOVE: dict[PRMKind, str] = {
    PRMKind.MC: "import llenvs.analysis first (MonteCarloPRM runs the runner, a layer above the "
    "rewards, and registers itself when imported)",
}
"""The kinds a higher layer registers, and how to get each one."""

_FACTORIES: dict[PRMKind, PRMFactory] = {}
"""The factories registered from above (``mc`` once the analysis layer is loaded)."""


def register_prm(name: str, factory: PRMFactory) -> None:
    """Make ``build_prm`` of the kind ``name`` call ``factory(**options)``.

    A layer above the rewards registers the PRMs it defines (``llenvs.analysis`` registers
    ``"mc"``), so this layer never imports them. Registering a name again with the same factory
    does nothing; with another factory it is an error, as is a name this layer builds itself.

    Example:
        >>> from llenvs.analysis.instruments._monte_carlo_prm import make_prm  # registers "mc"
        >>> register_prm("mc", make_prm)  # the same factory again: nothing changes
        >>> register_prm("mc", ArithmeticPRM)
        Traceback (most recent call last):
        ...
        ValueError: the prm 'mc' is registered already, by another factory
        >>> register_prm("judge:x", ArithmeticPRM)
        Traceback (most recent call last):
        ...
        ValueError: cannot register the prm 'judge:x': only mc is registered from above

    """
    kind = next((k for k in _REGISTERED_ABOVE if k.value == name), None)
    if kind is None:
        above = ", ".join(k.value for k in _REGISTERED_ABOVE)
        raise ValueError(f"cannot register the prm {name!r}: only {above} is registered from above")
    known = _FACTORIES.setdefault(kind, factory)
    if known is not factory:
        raise ValueError(f"the prm {name!r} is registered already, by another factory")


def build_prm(
    spec: PRMSpec,
    *,
    backend: ModelBackend | None = None,
    environment: Environment | None = None,
    **options: Any,
) -> PRM:
    """The PRM ``spec`` names; ``options`` go to its constructor as they are.

    ``TRANSFORMERS`` needs a convention (the spec's, or ``convention=`` here, a convention
    object) and loads the folder with ``TransformersPRM.from_pretrained`` (torch and
    transformers are imported then, not before). ``VLLM`` is ``VllmPRM(model, base_url=...)``
    (``base_url`` None: ``$LLENVS_PRM_BASE_URL`` when the user set it, else
    ``DEFAULT_BASE_URL``, the local ``vllm serve``). ``MC`` needs ``backend=`` and
    ``environment=`` (``MonteCarloPRM``; ``llenvs.analysis`` registers it when imported, see
    ``register_prm``). ``JUDGE`` asks ``backend=``, or the spec's judge, built with
    ``llenvs.inference.build_backend`` (``judge:transformers``: the embedded model judges).

    Example:
        >>> build_prm(PRMSpec.parse("arithmetic"), neutral=1.0).score_steps("q", ["No sums."])
        [1.0]
        >>> build_prm(PRMSpec.parse("transformers/some/folder"))
        Traceback (most recent call last):
        ...
        ValueError: transformers PRMs need convention=: one of math-shepherd, qwen2.5-math-prm

    """
    kind = spec.kind
    if kind is PRMKind.NONE:
        raise ValueError("the spec names no PRM (none): there is nothing to build")
    if kind is PRMKind.ARITHMETIC:
        return ArithmeticPRM(**options)
    if kind is PRMKind.JUDGE:
        from llenvs.rewards.prm._judge import make_prm

        if spec.judge is not None:
            if backend is not None:
                raise ValueError(
                    f"{spec.name!r}: give the judge's backend once, by name (judge:<backend>) or "
                    "as backend= to build_prm"
                )
            from llenvs.inference import build_backend

            backend = build_backend(spec.judge)
        return make_prm(backend=backend, **options)
    if kind is PRMKind.MC:
        if kind not in _FACTORIES:
            raise ValueError(f"the 'mc' PRM is not registered here: {_REGISTERED_ABOVE[kind]}")
        return _FACTORIES[kind](backend=backend, environment=environment, **spec.options, **options)
    convention = options.pop("convention", spec.convention)
    if kind is PRMKind.TRANSFORMERS:
        if convention is None:
            raise ValueError(
                f"transformers PRMs need convention=: one of {', '.join(sorted(CONVENTIONS))}"
            )
        from llenvs.rewards.prm._transformers import TransformersPRM

        return TransformersPRM.from_pretrained(spec.model, convention=convention, **options)
    from llenvs.rewards.prm._vllm import VllmPRM

    if convention is not None:
        options["convention"] = convention
    return VllmPRM(spec.model, spec.base_url, **options)


def get_prm(name: str, **options: Any) -> PRM:
    """``build_prm(PRMSpec.parse(name, ...))``: the spec's options from ``options``.

    The options of the name's kind (``PRMKind.options``) make the spec; the others (``backend``,
    ``environment``, a constructor's own) go to ``build_prm``.

    Example:
        >>> get_prm("arithmetic", neutral=1.0).score_steps("q", ["No arithmetic."])
        [1.0]

    """
    spec, rest = _parsed(name, options)
    return build_prm(spec, **rest)


def build_prm_rewards(spec: PRMSpec, **options: Any) -> tuple[RewardFunction, ...]:
    """The PROCESS reward of the PRM ``spec`` names (a ``PRMRewardFunction``); none for NONE.

    ``options`` go to ``build_prm`` (``MC`` needs ``backend=`` and ``environment=``).

    Example:
        >>> [f.name for f in build_prm_rewards(PRMSpec.parse("arithmetic"))]
        ['prm']
        >>> build_prm_rewards(PRMSpec.parse("none"))
        ()

    """
    if spec.kind is PRMKind.NONE:
        return ()
    from llenvs.rewards.prm._reward_function import PRMRewardFunction

    return (PRMRewardFunction(build_prm(spec, **options)),)


def prm_rewards(name: str | None, **options: Any) -> tuple[RewardFunction, ...]:
    """The PROCESS reward of the PRM called ``name`` (a ``PRMRewardFunction``), none for None.

    ``options`` go to ``get_prm`` (``"mc"`` needs ``backend=`` and ``environment=``).

    Example:
        >>> [f.name for f in prm_rewards("arithmetic")], prm_rewards(None)
        (['prm'], ())

    """
    spec, rest = _parsed(name, options)
    return build_prm_rewards(spec, **rest)


def _parsed(name: str | None, options: dict[str, Any]) -> tuple[PRMSpec, dict[str, Any]]:
    """The spec ``name`` and its kind's options mean, and the options left for ``build_prm``.

    A convention given as an object (not its name) stays a build option.
    """
    kind = PRMSpec.parse(name).kind
    spec_options = {
        key: options[key]
        for key in kind.options
        if key in options and (key != "convention" or isinstance(options[key], str))
    }
    rest = {key: value for key, value in options.items() if key not in spec_options}
    return PRMSpec.parse(name, **spec_options), rest
