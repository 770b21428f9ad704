"""``SkipReason``: why planning skips a position a recipe's ``where`` selected.

A selected position is skipped, and counted in the plan, when the intervention's template
cannot be filled there, or when the branch's kept prefix holds an empty segment (replaying an
empty segment would end the branch before the intervention: a feedback after an empty last
step, say). Planning says so before any model runs, never a failure at run time.

Example:
    >>> SkipReason.EMPTY_SEGMENT.said(2)
    '2 positions skipped: empty segment (in the kept prefix: replaying it would end the branch before the intervention)'

"""  # noqa: E501

from __future__ import annotations

from enum import Enum

__all__ = ["SkipReason"]


class SkipReason(Enum):
    """Why a selected position plans no branch."""

    UNFILLED_TEMPLATE = "template not filled"
    """The intervention's template could not be filled (no number to perturb, no answer)."""
    EMPTY_SEGMENT = "empty segment"
    """The kept prefix holds an empty segment: replaying it would end the branch at once."""

    @property
    def detail(self) -> str:
        """What the reason means, for people."""
        if self is SkipReason.UNFILLED_TEMPLATE:
            return (
                "the intervention's template could not be filled: no number to perturb, or no "
                "answer/expected answer"
            )
        return "in the kept prefix: replaying it would end the branch before the intervention"

    def said(self, positions: int) -> str:
        """``"n positions skipped: reason (detail)"``.

        Example:
            >>> SkipReason.UNFILLED_TEMPLATE.said(1)  # doctest: +ELLIPSIS
            "1 position skipped: template not filled (the intervention's template could not ..."

        """
        plural = "" if positions == 1 else "s"
        return f"{positions} position{plural} skipped: {self.value} ({self.detail})"
