"""``BranchOutcome``: one branch of an experiment, as its experiment file records it.

Example:
    >>> from llenvs.core import read_record, record_dict
    >>> o = BranchOutcome("p" * 32, 3, 2, 1, 4, 0, 7, "b" * 32, False, "8", True, "100", 0.2)
    >>> o.key, o.position, o.flipped, o.answer_changed
    (('pppppppppppppppppppppppppppppppp', 2, 0), 0.5, True, True)
    >>> record = record_dict(o)
    >>> record["kind"], read_record(BranchOutcome, record) == o
    ('branch', True)

"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from llenvs.core import (
    RECORD,
    Count,
    Flag,
    Int64,
    Number,
    Text,
)

__all__ = ["BranchKey", "BranchOutcome"]

BranchKey = tuple[str, int, int]
"""A branch's place in an experiment: parent trace id, intervened segment, sample."""


@dataclass(frozen=True)
class BranchOutcome:
    """A finished branch: where it was made and how it ended, beside its parent's ending.

    A line written before the on-policy scores existed has none (they read as None).
    """

    __pydantic_config__ = RECORD

    kind: Literal["branch"] = field(default="branch", kw_only=True, repr=False)
    """``branch``: the line is a finished branch."""
    parent_id: Text
    """The parent trace's id."""
    task_index: Count
    """The parent's task index (shown; pairing is by parent id)."""
    segment: Count
    """The intervened segment."""
    at: Count
    """Segments of the parent kept before the intervention (``BranchRequest.at``)."""
    segments: Count
    """How many segments the parent has."""
    sample: Count
    """The sample's number at this point (0-based)."""
    seed: Int64 | None
    """The branch's sampling seed."""
    branch_id: Text
    """The branch trace's id (in the parents' branches sidecar)."""
    parent_success: Flag | None
    """The parent's verdict (before)."""
    parent_answer: Text | None
    """The parent's final answer."""
    success: Flag | None
    """The branch's verdict (after)."""
    answer: Text | None
    """The branch's final answer."""
    prm_score: Number | None = None
    """The parent's PRM score of the intervened segment, where it has one."""
    error: Text | None = None
    """The backend failure that ended the branch, if one did."""
    on_policy: Number | None = None
    """For a Force scored first (``How.on_policy``): the forced text's percentile among the
    model's own continuations from the same place (0-100); None: not scored."""
    on_policy_logprob: Number | None = None
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
