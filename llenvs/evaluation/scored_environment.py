"""A base environment cut by a segmenter, with a PRM's score as every step's process reward.

What ``llenvs evaluate --prm`` and the workbench's Evaluate page both build.

Example:
    >>> from llenvs.core.registry import environment_registry
    >>> from llenvs.core import SentenceSegmenter
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=2)
    >>> env = scored_environment(base, SentenceSegmenter(), "arithmetic")
    >>> [f.name for f in env.reward_functions]
    ['prm', 'correctness', 'format']
    >>> [f.name for f in scored_environment(base, SentenceSegmenter(), None).reward_functions]
    ['correctness', 'format']

"""

from __future__ import annotations

from llenvs.core.backend import ModelBackend
from llenvs.core.environment import Environment
from llenvs.core.segmented_environment import SegmentedEnvironment
from llenvs.core.segmenters.base import Segmenter
from llenvs.rewards.prm_registry import prm_rewards

__all__ = ["scored_environment"]


def scored_environment(
    base: Environment, segmenter: Segmenter, prm: str | None, backend: ModelBackend | None = None
) -> SegmentedEnvironment:
    """``base`` cut by ``segmenter``, the PRM called ``prm`` (or none) scoring each step.

    ``"mc"`` (Monte-Carlo step values) continues each step with ``backend``, the run's own
    model, and judges the continuations with ``base``'s verifier.

    Example:
        >>> from llenvs.core.registry import environment_registry
        >>> from llenvs.core import SentenceSegmenter
        >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=2)
        >>> scored_environment(base, SentenceSegmenter(), "mc")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: the mc PRM needs backend= (the model that continues) and environment= ...

    """
    if prm is None:
        return SegmentedEnvironment(base, segmenter)
    options = {"backend": backend, "environment": base} if prm == "mc" else {}
    rewards = (*prm_rewards(prm, **options), *base.reward_functions)
    return SegmentedEnvironment(base, segmenter, reward_functions=rewards)
