"""``BranchOutcome``: one branch of an experiment, as its experiment file records it.

Example:
    >>> o = BranchOutcome("p" * 32, 3, 2, 1, 4, 0, 7, "b" * 32, False, "8", True, "100", 0.2)
    >>> o.key, o.position, o.flipped, o.answer_changed
    (('pppppppppppppppppppppppppppppppp', 2, 0), 0.5, True, True)
    >>> BranchOutcome.from_record(o.to_record()) == o
    True

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, asdict, dataclass, fields
from typing import Any

__all__ = ["BranchKey", "BranchOutcome"]

BranchKey = tuple[str, int, int]
"""A branch's place in an experiment: parent trace id, intervened segment, sample."""


@dataclass(frozen=True)
class BranchOutcome:
    """A finished branch: where it was made and how it ended, beside its parent's ending."""

    parent_id: str
    """The parent trace's id."""
    task_index: int
    """The parent's task index (shown; pairing is by parent id)."""
    segment: int
    """The intervened segment."""
    at: int
    """Segments of the parent kept before the intervention (``BranchRequest.at``)."""
    segments: int
    """How many segments the parent has."""
    sample: int
    """The sample's number at this point (0-based)."""
    seed: int | None
    """The branch's sampling seed."""
    branch_id: str
    """The branch trace's id (in the parents' branches sidecar)."""
    parent_success: bool | None
    """The parent's verdict (before)."""
    parent_answer: str | None
    """The parent's final answer."""
    success: bool | None
    """The branch's verdict (after)."""
    answer: str | None
    """The branch's final answer."""
    prm_score: float | None = None
    """The parent's PRM score of the intervened segment, where it has one."""
    error: str | None = None
    """The backend failure that ended the branch, if one did."""
    on_policy: float | None = None
    """For a Force scored first (``How.on_policy``): the forced text's percentile among the
    model's own continuations from the same place (0-100); None: not scored."""
    on_policy_logprob: float | None = None
    """Its mean log-probability per token (None: not scored)."""

    @property
    def key(self) -> BranchKey:
        """``(parent_id, segment, sample)``: what a resumed run skips."""
        return (self.parent_id, self.segment, self.sample)

    @property
    def position(self) -> float:
        """The intervened segment's relative position: ``segment / segments``."""
        return self.segment / self.segments if self.segments else 0.0

    @property
    def flipped(self) -> bool:
        """Whether the verdict changed (either way; an unknown verdict never flips)."""
        known = self.parent_success is not None and self.success is not None
        return known and self.parent_success != self.success

    @property
    def answer_changed(self) -> bool:
        """Whether the branch's final answer differs from the parent's."""
        return self.answer != self.parent_answer

    def to_record(self) -> dict[str, Any]:
        """The JSON object of its line."""
        return {"kind": "branch", **asdict(self)}

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> BranchOutcome:
        """The outcome ``to_record`` wrote; a ``ValueError`` naming a missing field."""
        names = [f.name for f in fields(cls)]
        values = {name: record[name] for name in names if name in record}
        missing = [f.name for f in fields(cls) if f.name not in values and f.default is MISSING]
        if missing:
            raise ValueError(f"a branch record lacks {', '.join(missing)}")
        return cls(**values)
