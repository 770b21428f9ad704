"""Invariants 1 (lossless partition) and 2 (streaming equals replay) for every segmenter."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llenvs.core.segmenters import WHITESPACE, CompositeSegmenter, Segmenter, check_spans
from tests.core.segmenters.segmenter_cases import (
    SEGMENTERS,
    check_invariants,
    check_prefix_decisions,
    read_jsonl,
    stream_pieces,
    texts,
)

PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
IDS = [segmenter.spec.encode("unicode_escape").decode() for segmenter in SEGMENTERS]


@pytest.mark.parametrize("segmenter", SEGMENTERS, ids=IDS)
@PROPERTY
@given(text=texts(), cuts=st.lists(st.integers(0, 80), max_size=10))
def test_any_chunking_gives_the_pieces_of_spans(
    segmenter: Segmenter, text: str, cuts: list[int]
) -> None:
    check_invariants(segmenter, text, cuts)


@pytest.mark.parametrize("segmenter", SEGMENTERS, ids=IDS)
@PROPERTY
@given(text=texts(max_tokens=12))
def test_decisions_on_prefixes_hold_for_the_whole_text(segmenter: Segmenter, text: str) -> None:
    check_prefix_decisions(segmenter, text)


@pytest.mark.parametrize("segmenter", SEGMENTERS, ids=IDS)
@pytest.mark.parametrize("text", ["", " ", "\n", "\r\n\r\n", " \t\n\u3000\x1c "])
def test_empty_text_has_no_spans_and_whitespace_one(segmenter: Segmenter, text: str) -> None:
    spans = segmenter.spans(text)
    check_spans(text, spans)
    assert spans == ([(0, len(text))] if text else [])
    assert segmenter.segment(text) == []
    assert stream_pieces(segmenter, list(text)) == ([text] if text else [])


def test_whitespace_is_exactly_what_str_isspace_says() -> None:
    every = {chr(code) for code in range(sys.maxunicode + 1) if chr(code).isspace()}
    assert set(WHITESPACE) == every


def _responses() -> list[str]:
    return [row["response"] for row in read_jsonl("real_responses.jsonl")]


def _step_traces() -> list[str]:
    return ["\n\n".join(row["steps"]) for row in read_jsonl("step_traces.jsonl")]


@pytest.mark.parametrize("segmenter", SEGMENTERS, ids=IDS)
@pytest.mark.parametrize("source", [_responses, _step_traces], ids=["responses", "step_traces"])
def test_lossless_on_real_text_also_in_16_character_chunks(
    segmenter: Segmenter, source: Callable[[], list[str]]
) -> None:
    texts = source()
    assert texts
    for text in texts:
        spans = segmenter.spans(text)
        check_spans(text, spans)
        pieces = segmenter.pieces(text)
        assert "".join(pieces) == text
        chunks = [text[i : i + 16] for i in range(0, len(text), 16)]
        assert stream_pieces(segmenter, chunks) == pieces


def test_composite_cuts_are_the_union_of_its_childrens_cuts_on_real_text() -> None:
    segmenter = CompositeSegmenter()
    for text in _step_traces()[:60] + _responses():
        composite = _cuts(segmenter, text)
        union = set().union(*(_cuts(child, text) for child in segmenter.segmenters))
        assert composite <= union
        for cut in union - composite:
            before = max((c for c in composite if c < cut), default=0)
            assert text[before:cut].isspace(), (text[before:cut], cut)


def _cuts(segmenter: Segmenter, text: str) -> set[int]:
    return {start for start, _ in segmenter.spans(text)[1:]}
