"""Where an intervention branched from its parent trace, and what it did there.

Example:
    >>> b = BranchRecord("ab12", 2, InterventionKind.FEEDBACK, "Check step 2.")
    >>> b.to_dict()["intervention"]
    {'kind': 'feedback', 'text': 'Check step 2.'}

"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llenvs.traces.errors import TraceFormatError
from llenvs.traces.intervention_kind import InterventionKind
from llenvs.traces.record_reader import RecordReader

__all__ = ["BranchRecord"]

NEEDS_TEXT = frozenset({InterventionKind.FORCE, InterventionKind.FEEDBACK})
"""The kinds whose intervention carries a text."""


@dataclass(frozen=True)
class BranchRecord:
    """The parent of an intervention's trace: enough to replay the intervention.

    The branch keeps the parent's first ``segment_index`` segments (replayed as a prefix), then
    applies the intervention.

    Example:
        >>> BranchRecord("ab12", 0, InterventionKind.COMPLETE).text is None
        True

    """

    parent_id: str
    """``trace_id`` of the parent trace."""
    segment_index: int
    """Number of the parent's segments kept as the prefix (0: branched before the first)."""
    kind: InterventionKind
    """What was done at the branch point: force, feedback, complete or resample."""
    text: str | None = None
    """The forced segment or the feedback; None for complete and resample."""

    def __post_init__(self) -> None:
        if not isinstance(self.kind, InterventionKind):
            raise TraceFormatError(f"parent.kind must be an InterventionKind, got {self.kind!r}")
        if isinstance(self.segment_index, bool) or not isinstance(self.segment_index, int):
            raise TraceFormatError(
                f"parent.segment_index must be an int, got {self.segment_index!r}"
            )
        if self.segment_index < 0:
            raise TraceFormatError(f"parent.segment_index must be >= 0, got {self.segment_index}")
        if (self.kind in NEEDS_TEXT) != (self.text is not None):
            need = "needs a text" if self.kind in NEEDS_TEXT else "takes no text"
            raise TraceFormatError(f"a {self.kind.value} intervention {need}, got {self.text!r}")

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this record.

        Example:
            >>> BranchRecord("p", 1, InterventionKind.RESAMPLE).to_dict()["segment_index"]
            1

        """
        return {
            "parent_id": self.parent_id,
            "segment_index": self.segment_index,
            "intervention": {"kind": self.kind.value, "text": self.text},
        }

    @classmethod
    def from_dict(cls, data: object, where: str = "trace.parent") -> BranchRecord:
        """The record of a JSON object; a ``TraceFormatError`` naming the field otherwise.

        Example:
            >>> b = BranchRecord("p", 3, InterventionKind.FORCE, "So 4 legs. ")
            >>> BranchRecord.from_dict(b.to_dict()) == b
            True

        """
        reader = RecordReader(data, where)
        parent_id = reader.text("parent_id")
        segment_index = reader.integer("segment_index")
        intervention = RecordReader(reader.obj("intervention"), reader.path("intervention"))
        kind_name = intervention.text("kind")
        try:
            kind = InterventionKind(kind_name)
        except ValueError:
            choices = ", ".join(k.value for k in InterventionKind)
            raise TraceFormatError(
                f"{intervention.path('kind')}: unknown kind {kind_name!r}: choose from {choices}"
            ) from None
        record = cls(parent_id, segment_index, kind, intervention.opt_text("text"))
        intervention.done()
        reader.done()
        return record
