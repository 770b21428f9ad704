"""CompositeSegmenter: union of the children's cuts, streaming decisions, construction."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from llenvs.core.segmenters import (
    CompositeSegmenter,
    FirstCut,
    LineSegmenter,
    PatternSegmenter,
    Segmenter,
    SentenceSegmenter,
    default_segmenter,
)
from tests.core.segmenters.segmenter_cases import REPLAY_TEXT, stream_pieces, texts


def test_guide_composite_cuts_at_lines_and_sentences() -> None:
    seg = CompositeSegmenter(segmenters=(LineSegmenter(), SentenceSegmenter()))
    assert seg.pieces("Intro line\nOne. Two!\nThree") == [
        "Intro line\n",
        "One. ",
        "Two!\n",
        "Three",
    ]
    assert seg.pieces(REPLAY_TEXT) == SentenceSegmenter().pieces(REPLAY_TEXT)
    assert seg == CompositeSegmenter()


def test_steps_default_is_paragraphs_then_sentences() -> None:
    seg = default_segmenter()
    text = "Let me think.\nStill thinking\n\nStep two. Done.\n\n<answer>3</answer>"
    assert seg.pieces(text) == [
        "Let me think.\n",
        "Still thinking\n\n",
        "Step two. ",
        "Done.\n\n",
        "<answer>3</answer>",
    ]


def test_a_cut_that_would_leave_only_whitespace_is_dropped() -> None:
    assert CompositeSegmenter().pieces("Done.\n  Next") == ["Done.\n", "  Next"]


def test_composite_with_patterns() -> None:
    seg = CompositeSegmenter((LineSegmenter("\n\n"), PatternSegmenter()))
    assert seg.pieces("Intro.\n\n1. Add. So x.\n2. Stop.") == [
        "Intro.\n\n",
        "1. Add. ",
        "So x.\n",
        "2. Stop.",
    ]


def test_decides_a_cut_only_when_every_undecided_child_has_settled_past_it() -> None:
    seg = CompositeSegmenter((LineSegmenter(), SentenceSegmenter()))
    assert seg.first_cut("A.\nB") == FirstCut(3, 3)
    assert seg.first_cut("Ab. B\nC") == FirstCut(4, 4)
    assert seg.first_cut("a\nb. ") == FirstCut(2, 2)
    assert seg.first_cut('a b. "') == FirstCut(None, 3)
    assert seg.first_cut("a b\n") == FirstCut(None, 4)
    assert stream_pieces(seg, ["Ab", ".", " ", "B", "\n", "C"]) == ["Ab. ", "B\n", "C"]


def test_nested_composites_are_flattened_and_lists_are_accepted() -> None:
    inner = CompositeSegmenter([LineSegmenter("\n\n"), SentenceSegmenter()])
    outer = CompositeSegmenter([inner, PatternSegmenter()])
    assert outer.segmenters == (LineSegmenter("\n\n"), SentenceSegmenter(), PatternSegmenter())
    assert outer.spec == "composite:line:\\n\\n+sentence+pattern"


def test_bad_children_are_refused() -> None:
    with pytest.raises(ValueError, match="at least one child segmenter"):
        CompositeSegmenter(())
    with pytest.raises(TypeError, match="must be segmenters"):
        CompositeSegmenter(("line",))  # type: ignore[arg-type]


def test_segment_trims_like_its_children() -> None:
    assert CompositeSegmenter().segment(" One.  Two.\n\n") == ["One.", "Two."]


def _cuts(segmenter: Segmenter, text: str) -> set[int]:
    return {start for start, _ in segmenter.spans(text)[1:]}


@pytest.mark.parametrize("composite", [CompositeSegmenter(), default_segmenter()], ids=repr)
@settings(max_examples=200, deadline=None)
@given(text=texts())
def test_lines_and_sentences_compose_to_the_union_of_their_cuts(
    composite: CompositeSegmenter, text: str
) -> None:
    cuts = _cuts(composite, text)
    union = set().union(*(_cuts(child, text) for child in composite.segmenters))
    assert cuts <= union
    for cut in union - cuts:  # only a cut that would leave a whitespace-only piece is dropped
        before = max((c for c in cuts if c < cut), default=0)
        assert text[before:cut].isspace()
