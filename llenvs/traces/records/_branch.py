"""Where an intervention branched from its parent trace, and what it did there.

Example:
    >>> from llenvs.core._intervention import Feedback
    >>> b = BranchRecord("ab12", 2, Feedback("Check step 2."))
    >>> b.to_dict()["intervention"]
    {'kind': 'feedback', 'text': 'Check step 2.'}

"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llenvs.core import (
    Complete,
    Feedback,
    Force,
    Intervention,
    Resample,
    intervention_from_record,
)
from llenvs.traces.records._record_reader import RecordReader
from llenvs.traces.records._trace_format_error import TraceFormatError

__all__ = ["BranchRecord"]


@dataclass(frozen=True)
class BranchRecord:
    """The parent of an intervention's trace: enough to replay the intervention.

    The branch keeps the parent's first ``segment_index`` segments (replayed as a prefix), then
    applies the intervention.

    Example:
        >>> BranchRecord("ab12", 0, COMPLETE).intervention
        COMPLETE

    """

    parent_id: str
    """``trace_id`` of the parent trace."""
    segment_index: int
    """Number of the parent's segments kept as the prefix (0: branched before the first)."""
    intervention: Intervention
    """What was done at the branch point: `kind` (InterventionKind, below) and `text` (the forced segment or the feedback; null for complete and resample), and a resample's fields below."""  # noqa: E501

    def __post_init__(self) -> None:
        if not isinstance(self.intervention, Force | Feedback | Complete | Resample):
            raise TraceFormatError(
                f"parent.intervention must be a Force, Feedback, Complete or Resample, got "
                f"{self.intervention!r}"
            )
        if isinstance(self.segment_index, bool) or not isinstance(self.segment_index, int):
            raise TraceFormatError(
                f"parent.segment_index must be an int, got {self.segment_index!r}"
            )
        if self.segment_index < 0:
            raise TraceFormatError(f"parent.segment_index must be >= 0, got {self.segment_index}")

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this record.

        Example:
            >>> BranchRecord("p", 1, Resample()).to_dict()
            {'parent_id': 'p', 'segment_index': 1, 'intervention': {'kind': 'resample', 'text': None}}

        """  # noqa: E501
        return {
            "parent_id": self.parent_id,
            "segment_index": self.segment_index,
            "intervention": self.intervention.to_record(),
        }

    @classmethod
    def from_dict(cls, data: object, where: str = "trace.parent") -> BranchRecord:
        """The record of a JSON object; a ``TraceFormatError`` naming the field otherwise.

        Example:
            >>> b = BranchRecord("p", 3, Force("So 4 legs. "))
            >>> BranchRecord.from_dict(b.to_dict()) == b
            True
            >>> BranchRecord.from_dict({"parent_id": "p", "segment_index": 0,
            ...                         "intervention": {"kind": "force", "text": None}})
            Traceback (most recent call last):
            ...
            llenvs.traces.TraceFormatError: trace.parent.intervention: text: a force intervention needs a text, got null

        """  # noqa: E501
        reader = RecordReader(data, where)
        parent_id = reader.text("parent_id")
        segment_index = reader.integer("segment_index")
        raw = reader.obj("intervention")
        try:
            intervention = intervention_from_record(raw)
        except (TypeError, ValueError) as error:
            raise TraceFormatError(f"{reader.path('intervention')}: {error}") from None
        reader.done()
        return cls(parent_id, segment_index, intervention)
