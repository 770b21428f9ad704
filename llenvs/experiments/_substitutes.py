"""An experiment's substitutes: each point's text searched for among the model's own, first.

A recipe whose ``what`` is a ``Substitute``, or a ``Force`` with ``how.substitute`` set, plans
``Substitute`` branches (``plan_experiment``). Before the branches run, each one's substitute is
searched for (``find_substitute``: its own seed, the tries measured with MiniLM, else the
lexical similarity, named in the record), and the branch forces the text found; once made, the
branch records the ``Substitute`` as its intervention and the search as
``metadata.substitute`` (``recorded_substitute``, as ``intervene`` records one).

Example:
    >>> from llenvs.analysis.instruments import LexicalSimilarity
    >>> from llenvs.core import Substitute
    >>> from llenvs.evaluation.branching import BranchJob, BranchRequest
    >>> from llenvs.experiments._planned_branch import PlannedBranch
    >>> parent = leg_counting_trace("Count. So 8. <answer>8</answer>")
    >>> job = BranchJob(BranchRequest(parent, 1, Substitute("So 100 legs.", tries=2)), seed=1)
    >>> planned = PlannedBranch(job, 1, 0, False, "8", None)
    >>> backend = get_backend("scripted", outputs=["Count. So 100 legs. <answer>100</answer>"])
    >>> found = substitutes([planned], backend, LexicalSimilarity())
    >>> found[planned.key].tries, forced_job(planned, found).request.intervention
    (2, Force(text='So 100 legs. <answer>100</answer>'))

"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from llenvs.core import Force, ModelBackend, RunControl, Substitute
from llenvs.evaluation.branching import BranchJob, Similarity, Substitution, find_substitute
from llenvs.experiments._branch_outcome import BranchKey
from llenvs.experiments._planned_branch import PlannedBranch

__all__ = ["forced_job", "substitutes"]


def substitutes(
    planned: Sequence[PlannedBranch],
    backend: ModelBackend,
    similarity: Similarity,
    *,
    on_policy: int = 0,
    control: RunControl | None = None,
) -> dict[BranchKey, Substitution]:
    """The substitute each ``Substitute`` branch of ``planned`` forces, by the branch's key.

    ``on_policy``: the chosen text and the target are each scored against this many of the
    model's own continuations (``how.on_policy``). Once ``control`` is stopped, no more
    searches start (the branches searched so far are returned).
    """
    found = {}
    for branch in planned:
        asked = branch.request.intervention
        if not isinstance(asked, Substitute):
            continue
        if control is not None and control.stopped:
            break
        found[branch.key] = find_substitute(
            branch.request.parent,
            branch.request.at,
            asked,
            backend,
            similarity,
            on_policy_samples=on_policy,
        )
    return found


def forced_job(branch: PlannedBranch, found: Mapping[BranchKey, Substitution]) -> BranchJob:
    """The branch's job, forcing its substitute's text where it has one."""
    made = found.get(branch.key)
    if made is None:
        return branch.job
    request = replace(branch.request, intervention=Force(made.text))
    return replace(branch.job, request=request)
