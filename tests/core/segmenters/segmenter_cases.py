"""Shared material for the segmenter tests: segmenters, text strategies, invariant checks."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from llenvs.core.segmenters import (
    CompositeSegmenter,
    LineSegmenter,
    PatternSegmenter,
    Segmenter,
    SentenceSegmenter,
    check_spans,
    default_segmenter,
)

GUIDE_PATTERNS = (r"(?:^|\s)\d+[.:]\s", r"(?:^|\s)(?:So|Thus|Hence),?\s")
"""The custom patterns of the guide's PatternSegmenter example."""

REPLAY_TEXT = (
    "First, count the animals. There are 2 dogs.\n"
    "Dogs have 4 legs each. So 2 × 4 = 8. <answer>8</answer>"
)
"""The guide's replay example response."""

AIME_TEXT = (
    "Step 1: Identify the given information.\n"
    "Step 2: Set up the equation.\n"
    "Step 3: Solve for x = 42.\n"
    "<answer>42</answer>"
)
"""The guide's AIME example response."""

SEGMENTERS: list[Segmenter] = [
    SentenceSegmenter(),
    LineSegmenter(),
    LineSegmenter("\n\n"),
    LineSegmenter("\r\n"),
    LineSegmenter("--"),
    LineSegmenter(";"),
    LineSegmenter("aba"),
    PatternSegmenter(),
    PatternSegmenter(GUIDE_PATTERNS),
    PatternSegmenter((r"\n\n", r"So\b", r"(?=Step)", r"(?<=\. )[A-Z]")),
    CompositeSegmenter(),
    default_segmenter(),
    CompositeSegmenter((PatternSegmenter(), SentenceSegmenter())),
    CompositeSegmenter((LineSegmenter("\n\n"), SentenceSegmenter(), PatternSegmenter())),
]
"""Every kind of segmenter, with default, guide and custom arguments."""

TRICKY = [
    "3.", "14", "5", " ", "  ", "\t", "\n", "\n\n", "\r\n", "\r", "\u00a0", "\x1c", "\u2028",
    "e.g.", "i.e.", "Dr.", "No.", "p.", "U.S.", "I.", "A.", "x", "The", "the", "So", "So,",
    "Then", "Therefore,", "First,", "Let me", "Step 1:", "Step", "1.", "2)", "(3)", "<answer>",
    "</answer>", "?!", "...", "…", ".", "!", "?", ":", '"', "'", "“", "”", "(", ")", "[", "]",
    "$", "*", "**", "#", "-", "--", ";", "ab", "a", "b", "é", "e\u0301", "🙂", "中文",
    "•", "⁃", "a)", "b)", "1)", "2.)", "ii.", "a.m.", "He", "Government", "\\(", "\\)", "\\",
    "`", "$$", ". . .", "## ", "10.", "9.",
]  # fmt: skip
"""Tokens that exercise the boundary rules when strung together."""


def texts(max_tokens: int = 24) -> st.SearchStrategy[str]:
    """Arbitrary Unicode text, and text built from tricky tokens (so boundaries happen)."""
    token = st.one_of(st.sampled_from(TRICKY), st.text(max_size=3))
    return st.one_of(
        st.text(max_size=30),
        st.lists(token, max_size=max_tokens).map("".join),
    )


def chunked(text: str, cuts: list[int]) -> list[str]:
    """``text`` split at the given positions (any order, duplicates allowed)."""
    points = [0, *sorted({min(max(cut, 0), len(text)) for cut in cuts}), len(text)]
    return [text[a:b] for a, b in pairwise(points) if b > a]


def stream_pieces(segmenter: Segmenter, chunks: list[str]) -> list[str]:
    """What ``segmenter.stream()`` returns when fed ``chunks`` and closed."""
    stream = segmenter.stream()
    pieces: list[str] = []
    for chunk in chunks:
        pieces.extend(stream.feed(chunk))
    return pieces + stream.close()


def boundary_loop_pieces(segmenter: Segmenter, chunks: list[str]) -> list[str]:
    """The pure ``find_boundary`` loop: cut at the returned index, keep the rest, split the end."""
    buffer = ""
    pieces: list[str] = []
    for chunk in chunks:
        buffer += chunk
        while (boundary := segmenter.find_boundary(buffer)) is not None:
            assert boundary != 0, f"find_boundary returned 0 for {buffer!r}"
            assert segmenter.find_boundary(buffer) == boundary, "find_boundary is not pure"
            pieces.append(buffer[:boundary])
            buffer = buffer[boundary:]
    return pieces + segmenter.pieces(buffer)


def check_prefix_decisions(segmenter: Segmenter, text: str) -> None:
    """Every decision on a prefix agrees with ``spans(text)``; ``resume`` changes nothing."""
    spans = segmenter.spans(text)
    first_end = spans[0][1] if len(spans) > 1 else None
    whole = segmenter.first_cut(text)
    for size in range(len(text) + 1):
        prefix = text[:size]
        cut = segmenter.first_cut(prefix)
        assert cut == segmenter.first_cut(prefix), "first_cut is not pure"
        assert cut.end != 0
        assert 0 <= cut.settled <= size, (prefix, cut)
        if cut.end is not None:
            assert cut.end == first_end, (prefix, cut, first_end)
            assert cut.settled == cut.end
        if first_end is not None:
            assert cut.settled <= first_end, (prefix, cut, first_end)
        for resume in {0, cut.settled // 2, max(cut.settled - 1, 0), cut.settled}:
            assert segmenter.first_cut(text, resume) == whole, (prefix, cut, resume)


def check_invariants(segmenter: Segmenter, text: str, cuts: list[int]) -> None:
    """Invariants 1 and 2 of DESIGN.md for one text and one chunking of it."""
    spans = segmenter.spans(text)
    check_spans(text, spans)
    assert segmenter.spans(text) == spans, "spans is not pure"
    pieces = segmenter.pieces(text)
    assert "".join(pieces) == text
    chunks = chunked(text, cuts)
    assert stream_pieces(segmenter, chunks) == pieces, chunks
    assert boundary_loop_pieces(segmenter, chunks) == pieces, chunks


def external_dir() -> Path:
    """``<repo root>/../shared/external``: public data read by tests, never copied here."""
    return Path(__file__).resolve().parents[3] / ".." / "shared" / "external"


def read_jsonl(name: str) -> list[dict[str, Any]]:
    """The rows of one external JSONL file; fails loudly when the shared folder is missing."""
    path = external_dir() / name
    assert path.is_file(), f"external data missing: {path} (shared/ must sit beside the repo)"
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]
