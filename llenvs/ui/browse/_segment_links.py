"""What the selected segment depends on, and what depends on it: an imported study's links.

Thought Anchors annotates each chunk with the earlier chunks it uses (``depends_on``) and a
short ``summary``; its site shows a step's links beside the step. Here the selected segment
shows its summary, the segments it depends on and the segments that depend on it (the inverse
of ``depends_on``), each a button that selects that segment. A trace without such annotations
shows nothing.

Example:
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A. B. C.", segments=(
    ...     SegmentRecord(0, 0, 3, "A. ", annotations={"depends_on": []}),
    ...     SegmentRecord(1, 3, 6, "B. ", annotations={"depends_on": [0]}),
    ...     SegmentRecord(2, 6, 8, "C.", annotations={"depends_on": [0, 1]})))
    >>> depends_on(t, 2), depended_on_by(t)[0]
    ((0, 1), (1, 2))

"""

from __future__ import annotations

import re

import streamlit as st

from llenvs.analysis.sidecar import DEPENDS_ON, SUMMARY
from llenvs.traces import Trace
from llenvs.ui.common import go_to
from llenvs.workbench import BrowseLocation, one_line

__all__ = ["depended_on_by", "depends_on", "has_links", "segment_links"]


LABEL_LIMIT = 48
"""The most characters of a linked segment's summary shown on its button."""


def depends_on(trace: Trace, segment: int) -> tuple[int, ...]:
    """The segments ``segment`` of ``trace`` depends on: sorted, in the trace, not itself.

    Example:
        >>> from llenvs.traces import SegmentRecord, TaskRecord
        >>> one = SegmentRecord(0, 0, 1, "A", annotations={"depends_on": [0, 7, "x"]})
        >>> depends_on(Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A",
        ...                  segments=(one,)), 0)
        ()

    """
    listed = trace.segments[segment].annotations.get(DEPENDS_ON)
    if not isinstance(listed, list | tuple):
        return ()
    found = {
        int(i)
        for i in listed
        if isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(trace.segments)
    }
    found.discard(segment)
    return tuple(sorted(found))


def depended_on_by(trace: Trace) -> dict[int, tuple[int, ...]]:
    """For each segment of ``trace`` that others depend on, those others, in order.

    Example:
        >>> depended_on_by(Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="",
        ...                      segments=()))
        {}

    """
    users: dict[int, list[int]] = {}
    for segment in range(len(trace.segments)):
        for used in depends_on(trace, segment):
            users.setdefault(used, []).append(segment)
    return {used: tuple(by) for used, by in users.items()}


def has_links(trace: Trace) -> bool:
    """Whether some segment of ``trace`` has a ``depends_on`` or ``summary`` annotation.

    Example:
        >>> has_links(Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=()))
        False

    """
    return any(
        DEPENDS_ON in segment.annotations or SUMMARY in segment.annotations
        for segment in trace.segments
    )


def segment_links(trace: Trace, here: BrowseLocation) -> None:
    """Draw the summary and the links of the selected segment (``here``), when annotated.

    Each link is a button labelled with the linked segment's index and summary; a click selects
    that segment. Keys name the selected segment and the link, so a move redraws them afresh.
    """
    if not trace.segments or not has_links(trace):
        return
    segment = here.segment
    summary = _summary(trace, segment)
    if summary:
        st.text(f"Summary: {summary}")
    links = [
        ("Depends on", "uses", depends_on(trace, segment)),
        ("Depended on by", "used-by", depended_on_by(trace).get(segment, ())),
    ]
    for title, kind, targets in links:
        row = st.container(horizontal=True, vertical_alignment="center", gap="small")
        row.caption(f"{title}:" if targets else f"{title}: none", width="content")
        for target in targets:
            about = _summary(trace, target)
            row.button(
                _plain(one_line(f"{target} · {about}" if about else str(target), LABEL_LIMIT)),
                key=f"link-{here.line}-{segment}-{kind}-{target}",
                on_click=go_to,
                args=(BrowseLocation(here.file, here.line, target),),
                help=f"Select segment {target}",
            )


def _summary(trace: Trace, segment: int) -> str:
    summary = trace.segments[segment].annotations.get(SUMMARY)
    return summary.strip() if isinstance(summary, str) else ""


def _plain(text: str) -> str:
    r"""``text`` with Markdown's special characters escaped (a button's label is Markdown).

    Example:
        >>> print(_plain("a*b = $2$"))
        a\*b = \$2\$

    """
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|$~<>:])", r"\\\1", text)
