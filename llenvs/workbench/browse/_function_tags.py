"""Segments' function tags: what an imported study (Thought Anchors) says each segment does.

A segment's ``function_tags`` annotation names its role in the reasoning (``plan_generation``,
``active_computation``, ``uncertainty_management``, ...). The segment table shows them in a
``tags`` column coloured by the first tag (``tag_colour``: its own column, so the reward and PRM
colours stay as they are), and the tag filter narrows the rows to the segments carrying any of
the chosen tags (``tagged_segments``), counted per tag for its choices (``tag_counts``).

Example:
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A. B. C.", segments=(
    ...     SegmentRecord(0, 0, 3, "A. ", annotations={"function_tags": ["plan_generation"]}),
    ...     SegmentRecord(1, 3, 6, "B. ", annotations={"function_tags": ["active_computation"]}),
    ...     SegmentRecord(2, 6, 8, "C.", annotations={"function_tags": ["active_computation"]})))
    >>> tag_counts(t)
    {'active_computation': 2, 'plan_generation': 1}
    >>> tagged_segments(t, ["plan_generation"]), tagged_segments(t, [])
    ([0], [0, 1, 2])

"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Collection

from llenvs.analysis.sidecar import FUNCTION_TAGS
from llenvs.traces import SegmentRecord, Trace

__all__ = [
    "TAG_COLOURS",
    "segment_tags",
    "tag_colour",
    "tag_counts",
    "tagged_segments",
]


TAG_COLOURS = {
    "problem_setup": "148, 103, 189",
    "plan_generation": "31, 119, 180",
    "fact_retrieval": "23, 190, 207",
    "active_computation": "170, 170, 170",
    "uncertainty_management": "255, 127, 14",
    "result_consolidation": "140, 86, 75",
    "self_checking": "227, 119, 194",
    "final_answer_emission": "188, 189, 34",
}
"""Thought Anchors' eight tags and their colours (RGB): none is the reward/PRM red or green,
and the commonest (``active_computation``) is a light grey, so the rarer roles stand out."""

_OTHER_COLOURS = ("102, 194, 165", "141, 160, 203", "231, 138, 195", "166, 216, 84")
"""Colours for tags outside ``TAG_COLOURS``, picked by a hash of the tag (stable across runs)."""


def segment_tags(segment: SegmentRecord) -> tuple[str, ...]:
    """The function tags of ``segment`` (none when it has no such annotation).

    Example:
        >>> segment_tags(SegmentRecord(0, 0, 1, "A", annotations={"function_tags": ["x"]}))
        ('x',)
        >>> segment_tags(SegmentRecord(0, 0, 1, "A"))
        ()

    """
    tags = segment.annotations.get(FUNCTION_TAGS)
    if not isinstance(tags, list | tuple):
        return ()
    return tuple(str(tag) for tag in tags)


def tag_counts(trace: Trace) -> dict[str, int]:
    """How many segments of ``trace`` carry each tag, the commonest first (ties by name).

    Empty when no segment is tagged (the table then has no tags column nor filter).

    Example:
        >>> tag_counts(Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=()))
        {}

    """
    counts = Counter(tag for segment in trace.segments for tag in set(segment_tags(segment)))
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def tagged_segments(trace: Trace, tags: Collection[str]) -> list[int]:
    """The indices of the segments of ``trace`` that carry any of ``tags``; all when none given.

    Example:
        >>> one = SegmentRecord(0, 0, 1, "A", annotations={"function_tags": ["x", "y"]})
        >>> tagged_segments(Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A",
        ...                       segments=(one,)), ["y", "z"])
        [0]

    """
    if not tags:
        return list(range(len(trace.segments)))
    wanted = set(tags)
    return [s.index for s in trace.segments if wanted.intersection(segment_tags(s))]


def tag_colour(tags: str) -> str:
    """The CSS background of a ``tags`` cell (tags joined by ", "): its first tag's colour.

    Example:
        >>> tag_colour("plan_generation, self_checking")
        'background-color: rgba(31, 119, 180, 0.35)'
        >>> tag_colour("")
        ''
        >>> tag_colour("a_new_tag") == tag_colour("a_new_tag, x")
        True

    """
    first = tags.split(", ")[0]
    if not first:
        return ""
    rgb = TAG_COLOURS.get(first)
    if rgb is None:
        digest = int(hashlib.sha256(first.encode()).hexdigest(), 16)
        rgb = _OTHER_COLOURS[digest % len(_OTHER_COLOURS)]
    return f"background-color: rgba({rgb}, 0.35)"
