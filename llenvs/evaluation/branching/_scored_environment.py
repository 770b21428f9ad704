"""A base environment cut by a segmenter, with a PRM's score as every step's process reward.

What ``llenvs evaluate --prm`` and the workbench's Evaluate page both build.

Example:
    >>> from llenvs.core import SentenceSegmenter
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=2)
    >>> env = scored_environment(base, SentenceSegmenter(), "arithmetic")
    >>> [f.name for f in env.reward_functions]
    ['prm', 'correctness', 'format']
    >>> [f.name for f in scored_environment(base, SentenceSegmenter(), None).reward_functions]
    ['correctness', 'format']

"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from llenvs.core import Environment, ModelBackend, RewardFunction, SegmentedEnvironment
from llenvs.core.run_spec import PRMKind, PRMSpec
from llenvs.core.segmenters import Segmenter
from llenvs.rewards.prm import build_prm_rewards

__all__ = ["run_prm_rewards", "scored_environment"]


def scored_environment(
    base: Environment,
    segmenter: Segmenter,
    prm: str | None,
    backend: ModelBackend | None = None,
    prm_options: Mapping[str, Any] | None = None,
) -> SegmentedEnvironment:
    """``base`` cut by ``segmenter``, the PRM called ``prm`` (or none) scoring each step.

    ``backend`` is the run's own model: ``"mc"`` (Monte-Carlo step values; registered when
    ``llenvs.analysis`` is imported, as the CLI and the workbench do) continues each step
    with it and judges the continuations with ``base``'s verifier; ``"judge"`` asks it to judge
    each step (no second copy of a model is loaded; ``"judge:<backend>"`` names another).
    ``prm_options`` go to ``get_prm`` (e.g. ``{"base_url": ...}`` for ``"vllm/<model>"``).

    Example:
        >>> from llenvs.core import SentenceSegmenter
        >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=2)
        >>> import llenvs.analysis  # registers "mc" (MonteCarloPRM) with get_prm
        >>> scored_environment(base, SentenceSegmenter(), "mc")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: the mc PRM needs backend= (the model that continues) and environment= ...
        >>> model = get_backend("scripted", outputs=["Yes"])
        >>> env = scored_environment(base, SentenceSegmenter(), "judge", model)
        >>> env.reward_functions[0].prm.backend is model
        True
        >>> env = scored_environment(base, SentenceSegmenter(), "vllm/m", None,
        ...                          {"base_url": "http://h:8000/v1"})
        >>> env.reward_functions[0].prm.base_url
        'http://h:8000/v1'

    """
    if prm is None:
        return SegmentedEnvironment(base, segmenter)
    rewards = (*run_prm_rewards(prm, prm_options, backend, base), *base.reward_functions)
    return SegmentedEnvironment(base, segmenter, reward_functions=rewards)


def run_prm_rewards(
    prm: str | None,
    options: Mapping[str, Any] | None,
    backend: ModelBackend | None,
    environment: Environment | None = None,
) -> tuple[RewardFunction, ...]:
    """The PROCESS reward of the PRM called ``prm`` (none for None) in a run of ``backend``.

    ``"mc"`` continues with the run's model and judges with ``environment``'s verifier;
    ``"judge"`` asks the run's model; ``options`` go to ``get_prm`` as they are.

    Example:
        >>> [f.name for f in run_prm_rewards("arithmetic", None, None)]
        ['prm']
        >>> run_prm_rewards(None, {}, None)
        ()

    """
    arguments = dict(options or {})
    spec = PRMSpec.parse(prm, **{k: v for k, v in arguments.items() if k in _spec_options(prm)})
    arguments = {k: v for k, v in arguments.items() if k not in _spec_options(prm)}
    if spec.kind is PRMKind.MC:
        arguments.update(backend=backend, environment=environment)
    elif spec.kind is PRMKind.JUDGE and spec.judge is None:
        arguments.update(backend=backend)
    return build_prm_rewards(spec, **arguments)


def _spec_options(prm: str | None) -> tuple[str, ...]:
    """The options that are part of the spec of the PRM called ``prm``."""
    return PRMSpec.parse(prm).kind.options
