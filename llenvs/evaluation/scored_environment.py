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

from collections.abc import Mapping
from typing import Any

from llenvs.core.backend import ModelBackend
from llenvs.core.environment import Environment
from llenvs.core.segmented_environment import SegmentedEnvironment
from llenvs.core.segmenters.base import Segmenter
from llenvs.rewards.prm_registry import prm_rewards

__all__ = ["scored_environment"]


def scored_environment(
    base: Environment,
    segmenter: Segmenter,
    prm: str | None,
    backend: ModelBackend | None = None,
    prm_options: Mapping[str, Any] | None = None,
) -> SegmentedEnvironment:
    """``base`` cut by ``segmenter``, the PRM called ``prm`` (or none) scoring each step.

    ``backend`` is the run's own model: ``"mc"`` (Monte-Carlo step values) continues each step
    with it and judges the continuations with ``base``'s verifier; ``"judge"`` asks it to judge
    each step (no second copy of a model is loaded; ``"judge:<backend>"`` names another).
    ``prm_options`` go to ``get_prm`` (e.g. ``{"base_url": ...}`` for ``"vllm/<model>"``).

    Example:
        >>> from llenvs.core.registry import environment_registry
        >>> from llenvs.core import SentenceSegmenter
        >>> from llenvs.inference import get_backend
        >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=2)
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
    options = dict(prm_options or {})
    if prm == "mc":
        options.update(backend=backend, environment=base)
    elif prm == "judge":
        options.update(backend=backend)
    rewards = (*prm_rewards(prm, **options), *base.reward_functions)
    return SegmentedEnvironment(base, segmenter, reward_functions=rewards)
