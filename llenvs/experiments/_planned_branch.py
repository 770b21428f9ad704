"""``PlannedBranch``: one branch an experiment makes, planned before any model runs.

``plan_experiment`` (``llenvs.experiments``) plans them: the job
``run_branches`` runs, the intervened segment, the sample's number, and the parent's verdict,
final answer and PRM score of that segment (what the branch's outcome is compared with).

Example:
    >>> PlannedBranch.key.__doc__
    '``(parent_id, segment, sample)``.'

"""

from __future__ import annotations

from dataclasses import dataclass

from llenvs.evaluation.branching import BranchJob, BranchRequest
from llenvs.experiments._branch_outcome import BranchKey

__all__ = ["PlannedBranch"]


@dataclass(frozen=True)
class PlannedBranch:
    """One branch an experiment makes."""

    job: BranchJob
    """What ``run_branches`` runs (the request, its sampling and seed)."""
    segment: int
    """The intervened segment."""
    sample: int
    """The sample's number at this point."""
    parent_success: bool | None
    """The parent's verdict (before)."""
    parent_answer: str | None
    """The parent's final answer."""
    prm_score: float | None
    """The parent's PRM score of the intervened segment, if it has one."""

    @property
    def request(self) -> BranchRequest:
        """The branch request."""
        return self.job.request

    @property
    def key(self) -> BranchKey:
        """``(parent_id, segment, sample)``."""
        return (self.request.parent.trace_id, self.segment, self.sample)
