"""Spec strings: names, escaping, canonical specs that round-trip, clear errors."""

from __future__ import annotations

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from llenvs.core.errors import SegmenterSpecError, UnknownName
from llenvs.core.segmenters import (
    CompositeSegmenter,
    LineSegmenter,
    PatternSegmenter,
    Segmenter,
    SentenceSegmenter,
    default_segmenter,
    escape_field,
    segmenter_from_spec,
    split_unescaped,
    unescape_field,
)
from tests.core.segmenters.segmenter_cases import GUIDE_PATTERNS, SEGMENTERS

SPECIAL = st.sampled_from([":", "+", "\\", "\\n", "\n", "\r", "\t", "\\\\", "\\:", "a", " ", "é"])
FIELD_TEXT = st.one_of(st.text(), st.lists(SPECIAL, max_size=12).map("".join))
REGEXES = st.sampled_from(
    [*GUIDE_PATTERNS, r"^Step \d+:", r"\\d", r"a\+b", r"[:+]", r"(?<=\. )[A-Z]", r"\n\n", r"\\\\"]
)


def line_segmenters() -> st.SearchStrategy[Segmenter]:
    return FIELD_TEXT.filter(bool).map(LineSegmenter)


def pattern_segmenters() -> st.SearchStrategy[Segmenter]:
    literal = FIELD_TEXT.filter(bool).map(regex.escape)
    return st.lists(st.one_of(REGEXES, literal), min_size=1, max_size=3).map(
        lambda patterns: PatternSegmenter(tuple(patterns))
    )


def leaf_segmenters() -> st.SearchStrategy[Segmenter]:
    return st.one_of(
        st.just(SentenceSegmenter()),
        st.just(PatternSegmenter()),
        line_segmenters(),
        pattern_segmenters(),
    )


def any_segmenters() -> st.SearchStrategy[Segmenter]:
    composites = st.lists(leaf_segmenters(), min_size=1, max_size=4).map(CompositeSegmenter)
    return st.one_of(leaf_segmenters(), composites)


@settings(max_examples=200, deadline=None)
@given(segmenter=any_segmenters())
def test_every_spec_round_trips(segmenter: Segmenter) -> None:
    rebuilt = segmenter_from_spec(segmenter.spec)
    assert rebuilt == segmenter
    assert type(rebuilt) is type(segmenter)
    assert rebuilt.spec == segmenter.spec
    assert "\n" not in segmenter.spec and "\r" not in segmenter.spec


@settings(max_examples=200, deadline=None)
@given(text=FIELD_TEXT)
def test_escaping_round_trips(text: str) -> None:
    field = escape_field(text)
    assert unescape_field(field) == text
    assert split_unescaped(field, ":") == [field]
    assert split_unescaped(field, "+") == [field]


@pytest.mark.parametrize(
    "segmenter", SEGMENTERS, ids=lambda s: s.spec.encode("unicode_escape").decode()
)
def test_the_test_segmenters_round_trip(segmenter: Segmenter) -> None:
    assert segmenter_from_spec(segmenter.spec) == segmenter


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("sentence", SentenceSegmenter()),
        ("line", LineSegmenter("\n")),
        ("line:\n\n", LineSegmenter("\n\n")),
        ("line:\\n\\n", LineSegmenter("\n\n")),
        ("line:\\r\\n", LineSegmenter("\r\n")),
        ("line:\\:", LineSegmenter(":")),
        ("line:\\+", LineSegmenter("+")),
        ("line:+", LineSegmenter("+")),
        ("line:\\\\", LineSegmenter("\\")),
        ("line:\\", LineSegmenter("\\")),
        ("line:---", LineSegmenter("---")),
        ("pattern", PatternSegmenter()),
        ("pattern:^Step \\d+", PatternSegmenter((r"^Step \d+",))),
        (
            "pattern:(?\\:^|\\s)\\d+[.\\:]\\s:(?\\:^|\\s)(?\\:So|Thus|Hence),?\\s",
            PatternSegmenter(GUIDE_PATTERNS),
        ),
        ("composite:line+sentence", CompositeSegmenter()),
        ("composite:line:\n\n+sentence", default_segmenter()),
        ("composite:line:\\n\\n+sentence", default_segmenter()),
        ("composite:sentence", CompositeSegmenter((SentenceSegmenter(),))),
        (
            "composite:pattern:\\d\\+x+line:\\+",
            CompositeSegmenter((PatternSegmenter((r"\d+x",)), LineSegmenter("+"))),
        ),
        ("composite:steps+pattern", CompositeSegmenter((default_segmenter(), PatternSegmenter()))),
        ("steps", default_segmenter()),
    ],
)
def test_spec_strings(spec: str, expected: Segmenter) -> None:
    assert segmenter_from_spec(spec) == expected


def test_steps_is_paragraphs_then_sentences_and_round_trips() -> None:
    steps = default_segmenter()
    assert steps == CompositeSegmenter((LineSegmenter("\n\n"), SentenceSegmenter()))
    assert steps.spec == "composite:line:\\n\\n+sentence"
    assert segmenter_from_spec(steps.spec) == steps == segmenter_from_spec("steps")


def test_unknown_names_list_the_valid_ones() -> None:
    with pytest.raises(UnknownName) as caught:
        segmenter_from_spec("sentense")
    names = ("composite", "line", "llm", "pattern", "sentence", "steps", "token")
    assert caught.value.choices == names
    assert str(caught.value) == (f"unknown segmenter 'sentense': choose one of: {', '.join(names)}")
    with pytest.raises(UnknownName, match="unknown segmenter 'nope'"):
        segmenter_from_spec("composite:line+nope:1")
    with pytest.raises(UnknownName, match="unknown segmenter ''"):
        segmenter_from_spec("")


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ("line:", "the delimiter is empty"),
        ("line:a:b", "line takes one delimiter"),
        ("sentence:x", "'sentence' takes no arguments"),
        ("steps:", "'steps' takes no arguments"),
        ("pattern:", "a pattern is empty"),
        ("pattern:a::b", "a pattern is empty"),
        ("pattern:(", "pattern '(' is not a valid regular expression"),
        ("pattern:[.", "not a valid regular expression"),
        ("composite:", "a composite needs children"),
        ("composite", "a composite needs children"),
        ("composite:line++sentence", "a child spec is empty"),
        ("composite:line:+sentence", "child 'line:': the delimiter is empty"),
    ],
)
def test_malformed_specs_say_why(spec: str, reason: str) -> None:
    with pytest.raises(SegmenterSpecError) as caught:
        segmenter_from_spec(spec)
    assert caught.value.spec == spec
    assert reason in caught.value.reason


def test_equality_and_hash_follow_the_spec() -> None:
    assert segmenter_from_spec("line:\\n\\n") == segmenter_from_spec("line:\n\n")
    assert hash(segmenter_from_spec("steps")) == hash(default_segmenter())
    assert SentenceSegmenter() != LineSegmenter()
    assert repr(default_segmenter()) == "segmenter_from_spec('composite:line:\\\\n\\\\n+sentence')"
