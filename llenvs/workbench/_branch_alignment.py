"""A branch aligned with its parent past the prefix it kept: the kept segments pair one to one.

``align_traces`` finds the longest runs of equal texts wherever they are. A branch's first
``kept`` segments are its parent's, but a model that repeats itself (``1. 8 * 8 = 64`` five
times, then again after a feedback turn) can give a longer equal run between the parent's start
and the branch's middle, and the kept prefix would show as inserted. So the prefix is paired
segment by segment and only the rest of the two is aligned: ``align_traces`` of the two tails
(each a trace of its own), its steps moved back to the whole traces' numbers.

Example:
    >>> parent = leg_counting_trace("Add one. Add two. So 4. <answer>4</answer>")
    >>> child = leg_counting_trace("Add one. Add two. Add one. Add two. So 4. <answer>4</answer>")
    >>> [(s.op.value, s.a, s.b) for s in align_traces(parent, child).ops][:2]
    [('inserted', None, 0), ('inserted', None, 1)]
    >>> [(s.op.value, s.a, s.b) for s in aligned_branch(parent, child, 2).ops]
    [('equal', 0, 0), ('equal', 1, 1), ('inserted', None, 2), ('inserted', None, 3), ('equal', 2, 4)]
    >>> aligned_branch(parent, child, 2).first_difference.b_character
    18

"""  # noqa: E501

from __future__ import annotations

from dataclasses import replace

from llenvs.analysis.instruments import (
    AlignedDiff,
    AlignedStep,
    DiffSide,
    FirstDifference,
    LexicalSimilarity,
    TextSimilarity,
    align_traces,
)
from llenvs.traces import Trace

__all__ = ["LEXICAL", "aligned_branch"]

LEXICAL = LexicalSimilarity()
"""The similarity the pages pair steps by meaning with: word overlap, no model to load."""


def aligned_branch(
    parent: Trace, child: Trace, kept: int, similarity: TextSimilarity = LEXICAL
) -> AlignedDiff:
    """``parent`` and ``child`` aligned, their first ``kept`` segments paired one to one.

    Where the two do not open with ``kept`` equal segments (a branch cut by another segmenter),
    the whole of both is aligned.

    Example:
        >>> t = leg_counting_trace("So 8. ")
        >>> aligned_branch(t, t, 5).first_difference is None
        True

    """
    if not 0 < kept <= min(len(parent.segments), len(child.segments)) or any(
        parent.segments[i].text != child.segments[i].text for i in range(kept)
    ):
        return align_traces(parent, child, similarity)
    tail = align_traces(_tail(parent, kept), _tail(child, kept), similarity)
    head = align_traces(_head(parent, kept), _head(child, kept), similarity)
    moved = tuple(_moved(step, kept) for step in tail.ops)
    first = tail.first_difference
    if first is not None:
        first = FirstDifference(
            first.step + kept,
            first.op,
            None if first.a is None else first.a + kept,
            None if first.b is None else first.b + kept,
            first.a_character + _cut(parent, kept),
            first.b_character + _cut(child, kept),
        )
    return replace(
        tail,
        ops=head.ops + moved,
        first_difference=first,
        a=DiffSide.of(parent),
        b=DiffSide.of(child),
    )


def _head(trace: Trace, kept: int) -> Trace:
    """``trace`` cut after its first ``kept`` segments."""
    return replace(
        trace,
        response=trace.response[: trace.segments[kept - 1].end],
        segments=trace.segments[:kept],
    )


def _tail(trace: Trace, kept: int) -> Trace:
    """``trace`` from its segment ``kept`` on, numbered from 0 (an empty trace past its end)."""
    start = _cut(trace, kept)
    segments = tuple(
        replace(s, index=s.index - kept, start=s.start - start, end=s.end - start)
        for s in trace.segments[kept:]
    )
    return replace(trace, response=trace.response[start:], segments=segments)


def _cut(trace: Trace, kept: int) -> int:
    """Where segment ``kept`` of ``trace`` starts (past its last: the response's end)."""
    return trace.segments[kept].start if kept < len(trace.segments) else len(trace.response)


def _moved(step: AlignedStep, kept: int) -> AlignedStep:
    """A step of the tails in the whole traces' numbers."""
    return replace(
        step,
        a=None if step.a is None else step.a + kept,
        b=None if step.b is None else step.b + kept,
    )
