"""``BranchRequest``: one intervention at one point of a trace, checked before any model loads.

The command line, the workbench's panel and job, ``intervene`` and ``branch`` pass this one
value from the click to the sidecar. Making it checks what needs no model: the branch point
is in range and something is left to do there; the intervention checked itself when it was
made (``llenvs.core``).

Example:
    >>> from llenvs.core._intervention import Force
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A.",
    ...           segments=(SegmentRecord(0, 0, 2, "A."),))
    >>> BranchRequest(t, 0, Force("B.")).record().intervention
    Force(text='B.')
    >>> BranchRequest(t, 2, Force("B."))
    Traceback (most recent call last):
    ...
    ValueError: cannot branch after segment 2: the trace has 1 segments (choose 0..1)

"""

from __future__ import annotations

from dataclasses import dataclass

from llenvs.core import Complete, Feedback, Force, Intervention, Resample, Substitute
from llenvs.traces.records import BranchRecord, Trace

__all__ = ["BranchRequest"]


@dataclass(frozen=True)
class BranchRequest:
    """Branch ``parent`` after its first ``at`` segments with ``intervention``.

    Refused when made (``ValueError``): a branch point outside ``0..len(parent.segments)``, and
    a ``Complete`` or ``Resample`` after a finished trace's last segment (nothing is left to
    generate; a ``Feedback`` there is a new user turn the model answers).

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A.",
        ...           segments=(SegmentRecord(0, 0, 2, "A.", terminal=True),))
        >>> BranchRequest(t, 1, COMPLETE)
        Traceback (most recent call last):
        ...
        ValueError: nothing to complete after segment 1: the trace ended there (its last segment is terminal); choose 0..0, or give feedback after it

    """  # noqa: E501

    parent: Trace
    """The trace branched."""
    at: int
    """How many of its segments are kept (0: branch before the first)."""
    intervention: Intervention
    """What is done there."""

    def __post_init__(self) -> None:
        if not isinstance(self.intervention, Force | Feedback | Complete | Resample | Substitute):
            raise TypeError(
                "the intervention must be a Force, Feedback, Complete, Resample or Substitute, got "
                f"{self.intervention!r}"
            )
        count = len(self.parent.segments)
        if isinstance(self.at, bool) or not isinstance(self.at, int):
            raise TypeError(f"the branch point must be an int, got {self.at!r}")
        if not 0 <= self.at <= count:
            raise ValueError(
                f"cannot branch after segment {self.at}: the trace has {count} segments "
                f"(choose 0..{count})"
            )
        ended = count > 0 and self.parent.segments[-1].terminal
        if self.at == count and ended and isinstance(self.intervention, Complete | Resample):
            raise ValueError(
                f"nothing to {self.intervention.kind.value} after segment {self.at}: the trace "
                f"ended there (its last segment is terminal); choose 0..{count - 1}, or give "
                "feedback after it"
            )

    @property
    def samples(self) -> int:
        """How many branches it makes: a ``Resample``'s ``n``, else 1.

        Example:
            >>> from llenvs.traces import TaskRecord, Trace
            >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
            >>> BranchRequest(t, 0, Resample(3)).samples
            3

        """
        match self.intervention:
            case Resample(n=n):
                return n
            case _:
                return 1

    def record(self) -> BranchRecord:
        """What each branch made records as its parent (``Trace.parent``).

        Example:
            >>> from llenvs.traces import TaskRecord, Trace
            >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
            >>> BranchRequest(t, 0, Resample()).record().segment_index
            0

        """
        return BranchRecord(self.parent.trace_id, self.at, self.intervention)
