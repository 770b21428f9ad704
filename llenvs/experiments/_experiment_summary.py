"""``ExperimentSummary``: what an experiment found, overall and per parent and point.

Each branch is paired with its parent: before is the parent's verdict, after the branch's.
Overall: success before and after (over the branches with both verdicts), their paired
difference with a paired-bootstrap 95% interval and McNemar's exact p (``compare_paired``),
the flips each way, and the answer-change rate with a Wilson interval; per parent and point,
its verdict before, the branches' verdicts after and how many changed the answer; the
steerability map and, where parents have PRM scores, the same by the intervened segment's
score (``map_bin``).

Example:
    >>> from llenvs.experiments._branch_outcome import BranchOutcome
    >>> def o(parent, segment, before, after, answer):
    ...     return BranchOutcome(parent, 0, segment, segment, 4, 0, 0, "b", before, "8", after,
    ...                          answer)
    >>> s = summarize([o("a", 0, False, True, "100"), o("a", 2, False, False, "8"),
    ...                o("b", 2, True, False, "9")])
    >>> s.parents, s.branches, s.fail_to_success, s.success_to_fail, s.answer_changed
    (2, 3, 1, 1, 2)
    >>> round(s.success_before, 3), round(s.success_after, 3), s.paired.p_value
    (0.333, 0.333, 1.0)

"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from llenvs.analysis import PairedComparison, compare_paired
from llenvs.analysis.statistics import Interval, wilson_interval
from llenvs.experiments._branch_outcome import BranchOutcome
from llenvs.experiments._map_bin import MapBin, on_policy_map, prm_score_map, steerability_map

__all__ = ["ExperimentSummary", "PointSummary", "summarize"]


@dataclass(frozen=True)
class PointSummary:
    """One parent at one intervened segment: before, and each sample after."""

    parent_id: str
    """The parent trace."""
    task_index: int
    """Its task index."""
    segment: int
    """The intervened segment."""
    position: float
    """Its relative position in the parent."""
    before: bool | None
    """The parent's verdict."""
    after: tuple[bool | None, ...]
    """Each sample's verdict."""
    answers_changed: int
    """Samples whose answer differs from the parent's."""

    def to_record(self) -> dict[str, Any]:
        """The point as JSON values."""
        return {
            "parent": self.parent_id,
            "task_index": self.task_index,
            "segment": self.segment,
            "position": round(self.position, 4),
            "before": self.before,
            "after": list(self.after),
            "answers_changed": self.answers_changed,
        }


@dataclass(frozen=True)
class ExperimentSummary:
    """The statistics of an experiment's recorded branches (see the module)."""

    parents: int
    """Distinct parents with a recorded branch."""
    branches: int
    """Recorded branches."""
    paired: PairedComparison | None
    """Before against after over the branches with both verdicts (None: no such branch)."""
    fail_to_success: int
    """Branches that succeeded where their parent failed."""
    success_to_fail: int
    """Branches that failed where their parent succeeded."""
    answer_changed: int
    """Branches whose final answer differs from their parent's."""
    points: tuple[PointSummary, ...]
    """Per parent and intervened segment, in record order."""
    map: tuple[MapBin, ...]
    """The steerability map (by relative position)."""
    by_prm_score: tuple[MapBin, ...]
    """The same by the parent's PRM score of the intervened segment (empty: no scores)."""
    by_on_policy: tuple[MapBin, ...] = ()
    """The same by the forced text's on-policy percentile / 100 (empty: none scored)."""

    @property
    def success_before(self) -> float | None:
        """The parents' success rate over the paired branches."""
        p = self.paired
        return None if p is None else p.first_successes / p.tasks

    @property
    def success_after(self) -> float | None:
        """The branches' success rate over the paired branches."""
        p = self.paired
        return None if p is None else p.second_successes / p.tasks

    @property
    def answer_change_interval(self) -> Interval:
        """Wilson 95% interval of the answer-change rate."""
        return wilson_interval(self.answer_changed, self.branches)

    def headline(self) -> dict[str, Any]:
        """The CLI's ``--json`` object.

        Example:
            >>> summarize([]).headline()["branches"]
            0

        """
        return {
            "parents": self.parents,
            "branches": self.branches,
            "success_before": _round(self.success_before),
            "success_after": _round(self.success_after),
            "flips": {
                "fail_to_success": self.fail_to_success,
                "success_to_fail": self.success_to_fail,
            },
            "answer_changed": self.answer_changed,
        }

    def to_record(self) -> dict[str, Any]:
        """Everything, as JSON values."""
        paired = self.paired
        interval = self.answer_change_interval
        return {
            **self.headline(),
            "difference": None if paired is None else round(paired.difference, 4),
            "difference_interval": None
            if paired is None
            else [round(paired.interval.low, 4), round(paired.interval.high, 4)],
            "mcnemar_p": None if paired is None else round(paired.p_value, 6),
            "answer_change_rate": _round(
                self.answer_changed / self.branches if self.branches else None
            ),
            "answer_change_interval": [round(interval.low, 4), round(interval.high, 4)],
            "map": [b.to_record() for b in self.map],
            "by_prm_score": [b.to_record() for b in self.by_prm_score],
            "by_on_policy": [b.to_record() for b in self.by_on_policy],
            "points": [p.to_record() for p in self.points],
        }


def summarize(
    outcomes: Sequence[BranchOutcome], *, bins: int = 4, seed: int = 0
) -> ExperimentSummary:
    """The summary of ``outcomes`` (``seed`` seeds the paired bootstrap)."""
    known = [o for o in outcomes if o.parent_success is not None and o.success is not None]
    paired = (
        compare_paired(
            [bool(o.parent_success) for o in known], [bool(o.success) for o in known], seed=seed
        )
        if known
        else None
    )
    flips = [o for o in outcomes if o.flipped]
    return ExperimentSummary(
        parents=len({o.parent_id for o in outcomes}),
        branches=len(outcomes),
        paired=paired,
        fail_to_success=sum(1 for o in flips if o.success),
        success_to_fail=sum(1 for o in flips if not o.success),
        answer_changed=sum(1 for o in outcomes if o.answer_changed),
        points=tuple(_points(outcomes)),
        map=tuple(steerability_map(outcomes, bins)),
        by_prm_score=tuple(prm_score_map(outcomes, bins)),
        by_on_policy=tuple(on_policy_map(outcomes, bins)),
    )


def _points(outcomes: Sequence[BranchOutcome]) -> list[PointSummary]:
    """One summary per (parent, segment), samples in sample order."""
    grouped: dict[tuple[str, int], list[BranchOutcome]] = {}
    for outcome in outcomes:
        grouped.setdefault((outcome.parent_id, outcome.segment), []).append(outcome)
    points = []
    for (parent, segment), inside in grouped.items():
        inside.sort(key=lambda o: o.sample)
        first = inside[0]
        points.append(
            PointSummary(
                parent,
                first.task_index,
                segment,
                first.position,
                first.parent_success,
                tuple(o.success for o in inside),
                sum(1 for o in inside if o.answer_changed),
            )
        )
    return points


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
