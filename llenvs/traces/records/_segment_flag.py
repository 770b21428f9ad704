"""How a segment came to be: the flags a trace records per segment.

Example:
    >>> SegmentFlag("forced") is SegmentFlag.FORCED
    True

"""

from __future__ import annotations

from enum import Enum

__all__ = ["SegmentFlag"]


class SegmentFlag(Enum):
    """One fact about a segment. Every segment has exactly one of GENERATED, FORCED, REPLAYED.

    Example:
        >>> sorted(flag.value for flag in SegmentFlag)
        ['feedback_after', 'forced', 'generated', 'one_shot', 'replayed']

    """

    GENERATED = "generated"
    """The model generated it (a backend call produced its tokens)."""
    FORCED = "forced"
    """A ``ForceAction`` supplied its text."""
    REPLAYED = "replayed"
    """It was stepped as given (a prefix, or a stored text replayed)."""
    ONE_SHOT = "one_shot"
    """It was cut from the rest of a response generated in one call (after ``COMPLETE``)."""
    FEEDBACK_AFTER = "feedback_after"
    """Feedback was injected right after it (a user turn follows it in ``messages``)."""
