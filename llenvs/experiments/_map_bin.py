"""The steerability map: flip and answer-change rates against where the intervention was made.

Branches are binned by the relative position of their intervened segment
(``steerability_map``: the segment's index over the parent's segment count, in ``bins`` equal
bins of ``[0, 1]``), or by their parent's PRM score of that segment (``prm_score_map``, for the
branches whose parents have one). Each bin has its flip rate (verdict changed, either way) and
answer-change rate, each with a Wilson interval; for early answering, ``same_answer`` is the
share of answers equal to the parent's final answer against the fraction of reasoning kept
(Lanham et al.'s figure).

Example:
    >>> from llenvs.experiments._branch_outcome import BranchOutcome
    >>> def o(segment, before, after, answer):
    ...     return BranchOutcome("p", 0, segment, segment, 4, 0, 0, "b", before, "8", after,
    ...                          answer)
    >>> outcomes = [o(0, False, True, "100"), o(1, False, False, "8"), o(3, True, False, "9")]
    >>> [(b.low, b.branches, b.flips, b.answer_changes) for b in steerability_map(outcomes, 2)]
    [(0.0, 2, 1, 1), (0.5, 1, 1, 1)]

"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from llenvs.analysis.statistics import Interval, wilson_interval
from llenvs.experiments._branch_outcome import BranchOutcome

__all__ = ["MapBin", "on_policy_map", "prm_score_map", "steerability_map"]


@dataclass(frozen=True)
class MapBin:
    """The branches of one bin, ``[low, high)`` (the last bin includes ``high``)."""

    low: float
    """Lower edge."""
    high: float
    """Upper edge."""
    branches: int
    """Branches in the bin."""
    flips: int
    """Of those, how many changed verdict (either way)."""
    fail_to_success: int
    """Flips from a failed parent to a successful branch."""
    success_to_fail: int
    """Flips from a successful parent to a failed branch."""
    answer_changes: int
    """Branches whose final answer differs from their parent's."""

    @property
    def flip_rate(self) -> float | None:
        """``flips / branches`` (None: an empty bin)."""
        return self.flips / self.branches if self.branches else None

    @property
    def flip_interval(self) -> Interval:
        """Wilson 95% interval of the flip rate."""
        return wilson_interval(self.flips, self.branches)

    @property
    def answer_change_rate(self) -> float | None:
        """``answer_changes / branches`` (None: an empty bin)."""
        return self.answer_changes / self.branches if self.branches else None

    @property
    def answer_change_interval(self) -> Interval:
        """Wilson 95% interval of the answer-change rate."""
        return wilson_interval(self.answer_changes, self.branches)

    @property
    def same_answer(self) -> float | None:
        """The share of answers equal to the parent's final answer (early answering)."""
        rate = self.answer_change_rate
        return None if rate is None else 1.0 - rate

    def to_record(self) -> dict[str, object]:
        """The bin as JSON values (rates and interval ends rounded to 4 places)."""
        return {
            "low": self.low,
            "high": self.high,
            "branches": self.branches,
            "flips": self.flips,
            "fail_to_success": self.fail_to_success,
            "success_to_fail": self.success_to_fail,
            "flip_rate": _round(self.flip_rate),
            "flip_interval": [_round(self.flip_interval.low), _round(self.flip_interval.high)],
            "answer_changes": self.answer_changes,
            "answer_change_rate": _round(self.answer_change_rate),
            "answer_change_interval": [
                _round(self.answer_change_interval.low),
                _round(self.answer_change_interval.high),
            ],
            "same_answer": _round(self.same_answer),
        }


def steerability_map(outcomes: Sequence[BranchOutcome], bins: int = 4) -> list[MapBin]:
    """The branches binned by the relative position of their intervened segment."""
    return _binned(outcomes, lambda o: o.position, bins)


def prm_score_map(outcomes: Sequence[BranchOutcome], bins: int = 4) -> list[MapBin]:
    """The branches whose parent scored the intervened segment, binned by that score.

    Example:
        >>> prm_score_map([])
        []

    """
    scored = [o for o in outcomes if o.prm_score is not None]
    if not scored:
        return []
    return _binned(scored, lambda o: float(o.prm_score or 0.0), bins)


def on_policy_map(outcomes: Sequence[BranchOutcome], bins: int = 4) -> list[MapBin]:
    """The branches whose forced text was scored on-policy, binned by its percentile / 100.

    Example:
        >>> on_policy_map([])
        []

    """
    scored = [o for o in outcomes if o.on_policy is not None]
    if not scored:
        return []
    return _binned(scored, lambda o: float(o.on_policy or 0.0) / 100, bins)


def _binned(
    outcomes: Sequence[BranchOutcome], value: Callable[[BranchOutcome], float], bins: int
) -> list[MapBin]:
    """``bins`` equal bins of ``[0, 1]`` over ``value`` (clamped into it)."""
    if bins < 1:
        raise ValueError(f"bins must be >= 1, got {bins}")
    members: list[list[BranchOutcome]] = [[] for _ in range(bins)]
    for outcome in outcomes:
        share = min(1.0, max(0.0, value(outcome)))
        where = min(bins - 1, int(share * bins + 1e-9))  # i/n on an edge stays on it
        members[where].append(outcome)
    made = []
    for number, inside in enumerate(members):
        flips = [o for o in inside if o.flipped]
        made.append(
            MapBin(
                low=number / bins,
                high=(number + 1) / bins,
                branches=len(inside),
                flips=len(flips),
                fail_to_success=sum(1 for o in flips if o.success),
                success_to_fail=sum(1 for o in flips if not o.success),
                answer_changes=sum(1 for o in inside if o.answer_changed),
            )
        )
    return made


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
