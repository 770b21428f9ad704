"""Where an intervention branched from its parent trace, and what it did there.

Example:
    >>> from llenvs.core import Feedback, record_dict
    >>> b = BranchRecord("ab12", 2, Feedback("Check step 2."))
    >>> record_dict(b)["intervention"]
    {'kind': 'feedback', 'text': 'Check step 2.'}

"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from llenvs.core import (
    INTERVENTION,
    RECORD,
    Complete,
    Count,
    Feedback,
    Force,
    Intervention,
    Resample,
    Substitute,
    Text,
)
from llenvs.traces.records._trace_format_error import TraceFormatError

__all__ = ["BranchRecord"]


@dataclass(frozen=True)
class BranchRecord:
    """The parent of an intervention's trace: enough to replay the intervention.

    The branch keeps the parent's first ``segment_index`` segments (replayed as a prefix), then
    applies the intervention.

    Example:
        >>> from llenvs.core import read_record, record_dict
        >>> BranchRecord("ab12", 0, COMPLETE).intervention
        COMPLETE
        >>> b = BranchRecord("p", 3, Force("So 4 legs. "))
        >>> read_record(BranchRecord, record_dict(b)) == b
        True
        >>> read_record(BranchRecord, {"parent_id": "p", "segment_index": 0,
        ...     "intervention": {"kind": "force", "text": None}}, "trace.parent")
        Traceback (most recent call last):
        ...
        llenvs.core.errors.RecordFormatError: trace.parent.intervention.text: a force intervention needs a text, got null

    """  # noqa: E501

    __pydantic_config__ = RECORD

    parent_id: Text
    """``trace_id`` of the parent trace."""
    segment_index: Count
    """Number of the parent's segments kept as the prefix (0: branched before the first)."""
    intervention: Annotated[Intervention, INTERVENTION]
    """What was done at the branch point: `kind` (InterventionKind, below) and `text` (the forced segment, the feedback or a substitute's target; null for complete and resample), and a resample's or a substitute's fields below."""  # noqa: E501

    def __post_init__(self) -> None:
        if not isinstance(self.intervention, Force | Feedback | Complete | Resample | Substitute):
            raise TraceFormatError(
                "parent.intervention must be a Force, Feedback, Complete, Resample or Substitute, "
                f"got {self.intervention!r}"
            )
        if isinstance(self.segment_index, bool) or not isinstance(self.segment_index, int):
            raise TraceFormatError(
                f"parent.segment_index must be an int, got {self.segment_index!r}"
            )
        if self.segment_index < 0:
            raise TraceFormatError(f"parent.segment_index must be >= 0, got {self.segment_index}")
