"""How on-policy each point's forced text is, scored before an experiment's branches are made.

A recipe whose ``what`` is a Force and whose ``how.on_policy`` is k > 0 scores the text forced at
every point still to be made (``llenvs.evaluation.branching``: the text's mean log-probability
per token after the parent's prefix, and its percentile among k continuations of the model's
own from there), once per parent, segment and text, before any branch starts. Each branch's
outcome records the percentile and the mean (``BranchOutcome.on_policy``), and the branch
trace the whole score (``metadata.on_policy``, as ``llenvs intervene`` records it), so that a
steerability map can be read against how on-policy each edit was (``on_policy_map``). A model
that cannot score a text is an ``ExperimentError`` before anything is written.

Example:
    >>> on_policy_scores([], get_backend("scripted", outputs=["x"]), 16)
    {}

"""

from __future__ import annotations

from collections.abc import Sequence

from llenvs.core import Force, ModelBackend, RunControl
from llenvs.evaluation.branching import OnPolicy, on_policy
from llenvs.experiments._experiment_error import ExperimentError
from llenvs.experiments._planned_branch import PlannedBranch

__all__ = ["PointKey", "check_scoring", "on_policy_scores", "point_key"]

PointKey = tuple[str, int, str]
"""A scored point: the parent's trace id, the segments kept before the text, the text."""


def point_key(branch: PlannedBranch) -> PointKey | None:
    """The point ``branch`` forces its text at, or None when it forces none.

    Example:
        >>> point_key.__name__
        'point_key'

    """
    intervention = branch.request.intervention
    if not isinstance(intervention, Force):
        return None
    return (branch.request.parent.trace_id, branch.request.at, intervention.text)


def check_scoring(backend: ModelBackend, samples: int) -> None:
    """An ``ExperimentError`` when ``backend`` cannot score the texts ``samples`` asks for.

    Example:
        >>> check_scoring(get_backend("scripted", outputs=["x"]), 0)
        >>> check_scoring(get_backend("scripted", outputs=["x"]), 4)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        llenvs.experiments._experiment_error.ExperimentError: how.on_policy = 4: scripted cannot...

    """
    if samples and backend.capabilities.score is None:
        raise ExperimentError(
            f"how.on_policy = {samples}: {backend.name} cannot score a text (no prompt "
            "log-probabilities); use a local model, or set on_policy = 0"
        )


def on_policy_scores(
    branches: Sequence[PlannedBranch],
    backend: ModelBackend,
    samples: int,
    *,
    seed: int = 0,
    control: RunControl | None = None,
) -> dict[PointKey, OnPolicy]:
    """The on-policy score of every point of ``branches`` that forces a text.

    Scored against ``samples`` continuations each, seeded from ``seed``; once ``control`` is
    stopped no further point is scored (those scored are returned).
    """
    points: dict[PointKey, PlannedBranch] = {}
    for branch in branches:
        key = point_key(branch)
        if key is not None:
            points.setdefault(key, branch)
    if points:
        check_scoring(backend, samples)
    scores = {}
    for key, branch in points.items():
        if control is not None and control.stopped:
            break
        parent, at, text = key
        del parent
        scores[key] = on_policy(
            branch.request.parent, at, text, backend, samples=samples, seed=seed
        )
    return scores
