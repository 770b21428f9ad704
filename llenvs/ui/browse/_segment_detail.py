"""The selected segment's text, and the raw response around it.

Segment text is always shown as text (``text_block``), never as HTML. A feedback turn (a user
turn injected between segments) shows where it happened: under the segment it follows, and
marked in the raw response. A segment or response longer than ``TEXT_LIMIT`` characters shows a
window of its text (``text_window``) beside a button that downloads all of it. A segment an
imported study annotated shows its summary and links (``segment_links``).
"""

from __future__ import annotations

import streamlit as st

from llenvs.evaluation import trace_feedback
from llenvs.traces import SegmentRecord, Trace
from llenvs.ui.browse._segment_links import segment_links
from llenvs.ui.common import text_block
from llenvs.workbench import BrowseLocation, scorer_name, visible_whitespace

__all__ = ["TEXT_LIMIT", "feedback_turns", "segment_detail", "text_window"]

TEXT_LIMIT = 20_000
"""The most characters of a segment, or of the raw response, drawn on the page at once."""


def feedback_turns(trace: Trace) -> dict[int, list[str]]:
    """The user turns injected in ``trace``, by the segment they follow (-1: before the first).

    Example:
        >>> feedback_turns(Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=(),
        ...                      metadata={"feedback": [{"after_segment": 1, "text": "Why?"}]}))
        {0: ['Why?']}

    """
    turns: dict[int, list[str]] = {}
    for before, text in trace_feedback(trace):
        turns.setdefault(before - 1, []).append(text)
    return turns


def text_window(length: int, start: int, limit: int = TEXT_LIMIT) -> range:
    """The characters of a text of ``length`` to show for a span starting at ``start``.

    All of them when they fit in ``limit``; else ``limit`` characters, a quarter of them before
    ``start`` (for context), moved back from the end of the text when they would run past it.

    Example:
        >>> text_window(500, 300), text_window(1_000_000, 500_000)
        (range(0, 500), range(495000, 515000))
        >>> text_window(1_000_000, 999_990), text_window(1_000_000, 100)
        (range(980000, 1000000), range(0, 20000))

    """
    if length <= limit:
        return range(length)
    first = min(max(start - limit // 4, 0), length - limit)
    return range(first, first + limit)


def segment_detail(trace: Trace, here: BrowseLocation) -> None:
    """The selected segment's tab (its numbers, links and text) beside the raw response's."""
    segment = here.segment
    if not trace.segments:
        st.info("This trace has no segments (an empty response).")
        return
    record = trace.segments[segment]
    turns = feedback_turns(trace)
    rendered, raw = st.tabs([f"Segment {segment}", "Raw response (whitespace shown)"])
    with rendered:
        scores = ", ".join(f"{scorer_name(trace, k)} {v:.3f}" for k, v in record.prm_scores.items())
        # a PRM's score is also its reward of the same name: said once, as a PRM score
        rewards = ", ".join(
            f"{k} {v:g}" for k, v in record.rewards.items() if k not in record.prm_scores
        )
        scored = f"PRM score, recorded with the trace: {scores}" if scores else "PRM score: —"
        st.caption(
            f"characters {record.start}–{record.end} · rewards: {rewards or '—'} · {scored} · "
            f"flags: {', '.join(sorted(f.value for f in record.flags))}"
            + (" · terminal" if record.terminal else "")
        )
        segment_links(trace, here)
        shown = text_window(len(record.text), 0)
        text_block(record.text[shown.start : shown.stop])
        if len(shown) < len(record.text):
            _whole_text(f"segment {segment}", record.text, shown, f"segment-{segment}.txt")
        for text in turns.get(segment, []):
            st.caption(f"Then a user turn (feedback) after segment {segment}:")
            text_block(text)
    with raw:
        if turns:
            st.caption(
                "Each ⟦user: …⟧ is a user turn (feedback) injected there, not response text."
            )
        places = {
            (0 if after < 0 else trace.segments[after].end): texts
            for after, texts in turns.items()
            if after < len(trace.segments)
        }
        _raw_response(trace.response, record, places)


def _raw_response(response: str, record: SegmentRecord, turns: dict[int, list[str]]) -> None:
    """The response around ``record``, whitespace shown, each user turn marked at its place."""
    shown = text_window(len(response), record.start)
    pieces, at = [], shown.start
    for place in sorted(p for p in turns if shown.start <= p <= shown.stop):
        pieces.append(visible_whitespace(response[at:place]))
        pieces.extend(f"\n⟦user: {text}⟧\n" for text in turns[place])
        at = place
    pieces.append(visible_whitespace(response[at : shown.stop]))
    text_block("".join(pieces))
    if len(shown) < len(response):
        _whole_text(
            f"the response (segment {record.index} starts at {record.start:,})",
            response,
            shown,
            "response.txt",
        )


def _whole_text(what: str, text: str, shown: range, file_name: str) -> None:
    """Which characters of ``text`` are shown, and a button that downloads all of them."""
    st.caption(f"Showing characters {shown.start:,}–{shown.stop:,} of {len(text):,} in {what}.")
    st.download_button(
        f"Download {what.split(' (')[0]} ({len(text):,} characters)",
        data=lambda: text,
        file_name=file_name,
        key=f"download-{file_name}",
        mime="text/plain",
        on_click="ignore",
        icon=":material/download:",
    )
