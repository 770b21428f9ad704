"""``ExperimentPlan``: the branches a recipe makes, and the selected positions it skipped.

A plan is the sequence of its ``PlannedBranch`` values (``len``, indexing and iteration are
the branches') with the count of selected positions that plan no branch, by ``SkipReason``;
``note()`` says them in one line ("" when none was skipped).

Example:
    >>> plan = ExperimentPlan((), {SkipReason.EMPTY_SEGMENT: 2})
    >>> len(plan), plan.note()
    (0, '2 positions skipped: empty segment (in the kept prefix: replaying it would end the branch before the intervention)')

"""  # noqa: E501

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, overload

from llenvs.experiments.skip_reason import SkipReason

if TYPE_CHECKING:
    from llenvs.experiments.planned_branch import PlannedBranch

__all__ = ["ExperimentPlan", "plan_of"]


@dataclass(frozen=True)
class ExperimentPlan(Sequence["PlannedBranch"]):
    """The planned branches, in parent order, and the skipped positions by reason."""

    branches: tuple[PlannedBranch, ...]
    """Every branch to make."""
    skipped: Mapping[SkipReason, int] = field(default_factory=dict)
    """Selected positions that plan no branch, counted by why (only reasons with a count)."""

    @overload
    def __getitem__(self, index: int) -> PlannedBranch: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[PlannedBranch, ...]: ...

    def __getitem__(self, index: int | slice) -> PlannedBranch | tuple[PlannedBranch, ...]:
        return self.branches[index]

    def __len__(self) -> int:
        return len(self.branches)

    def __iter__(self) -> Iterator[PlannedBranch]:
        return iter(self.branches)

    @property
    def skipped_positions(self) -> int:
        """How many selected positions plan no branch."""
        return sum(self.skipped.values())

    def note(self) -> str:
        """The skipped positions in one line, each reason with its count ("" for none).

        Example:
            >>> ExperimentPlan(()).note()
            ''

        """
        return "; ".join(reason.said(n) for reason, n in self.skipped.items() if n)


def plan_of(branches: Sequence[PlannedBranch], skipped: Sequence[SkipReason]) -> ExperimentPlan:
    """The plan of ``branches`` and one ``SkipReason`` per skipped position (in reason order).

    Example:
        >>> plan_of((), [SkipReason.EMPTY_SEGMENT, SkipReason.UNFILLED_TEMPLATE,
        ...              SkipReason.EMPTY_SEGMENT]).skipped_positions
        3

    """
    counts = {reason: skipped.count(reason) for reason in SkipReason if reason in skipped}
    return ExperimentPlan(tuple(branches), counts)
