"""The parent's prefix: its first k segments as they happened, for a branch to replay.

Each segment carries the token ids the model generated for it, and the parent's feedback turns
come back between them, so a branch continues exactly where its parent was (invariant 3).

Example:
    >>> from llenvs.traces import SegmentRecord, TaskRecord
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="Hm.",
    ...           segments=(SegmentRecord(0, 0, 3, "Hm.", token_ids=(9, 10)),))
    >>> trace_prefix(t, 1)
    [PrefixSegment(text='Hm.', token_ids=(9, 10))]

"""

from __future__ import annotations

from llenvs.evaluation.prefix import FeedbackTurn, PrefixSegment
from llenvs.traces.segment_flag import SegmentFlag
from llenvs.traces.trace import Trace

__all__ = ["trace_feedback", "trace_prefix"]


def trace_prefix(
    trace: Trace, at: int, *, keep_feedback_at: bool = True
) -> list[PrefixSegment | FeedbackTurn]:
    """The first ``at`` segments of ``trace`` as the runner's prefix, exactly as they happened.

    Each segment carries the token ids the model generated for it (so generation continues
    from them, not from re-tokenised text), and the trace's feedback turns come back between
    them. Feedback given right after segment ``at - 1`` is kept when ``keep_feedback_at``
    (a new feedback there replaces it).

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> segments = (SegmentRecord(0, 0, 3, "Hm."), SegmentRecord(1, 3, 6, " No"))
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="Hm. No",
        ...           segments=segments, metadata={"feedback": [{"after_segment": 1,
        ...                                                      "text": "Why?"}]})
        >>> trace_prefix(t, 2)
        [PrefixSegment(text='Hm.', token_ids=None), FeedbackTurn(text='Why?'), PrefixSegment(text=' No', token_ids=None)]

    """  # noqa: E501
    feedback = trace_feedback(trace)
    prefix: list[PrefixSegment | FeedbackTurn] = []
    for number in range(at + 1):
        if number < at or keep_feedback_at:
            prefix.extend(FeedbackTurn(text) for after, text in feedback if after == number)
        if number < at:
            segment = trace.segments[number]
            prefix.append(PrefixSegment(segment.text, segment.token_ids))
    return prefix


def trace_feedback(trace: Trace) -> list[tuple[int, str]]:
    """The feedback injected in ``trace``: (segments before it, text), in order.

    Read from the runner's ``metadata["feedback"]``; for a trace without it (an imported
    one), from the user turns after the first, placed after the segments flagged
    ``feedback_after``.

    Example:
        >>> trace_feedback(Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="",
        ...                      segments=(), metadata={"feedback": [
        ...                          {"after_segment": 0, "text": "Go on."}]}))
        [(0, 'Go on.')]

    """
    recorded = trace.metadata.get("feedback")
    if isinstance(recorded, list):
        return [(int(item["after_segment"]), str(item["text"])) for item in recorded]
    users = [m.content for m in trace.messages if m.role == "user"][1:]
    flagged = [s.index + 1 for s in trace.segments if SegmentFlag.FEEDBACK_AFTER in s.flags]
    return list(zip(flagged, users, strict=False))
