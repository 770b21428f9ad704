"""LineSegmenter: cuts after runs of a delimiter; indentation stays with its line."""

from __future__ import annotations

import pytest

from llenvs.core.segmenters import LineSegmenter


@pytest.mark.parametrize(
    ("delimiter", "text", "pieces"),
    [
        ("\n", "a\nb\nc", ["a\n", "b\n", "c"]),
        ("\n", "a\nb\n", ["a\n", "b\n"]),
        ("\n", "a\n\n\nb", ["a\n\n\n", "b"]),
        ("\n", "  a\n    b\n", ["  a\n", "    b\n"]),
        ("\n", "\n\na\nb", ["\n\na\n", "b"]),
        ("\n", "a\n  \nb", ["a\n  \n", "b"]),
        ("\n", "a\r\nb\rc", ["a\r\n", "b\r", "c"]),
        ("\n", "no newline", ["no newline"]),
        ("\n", "a\n   ", ["a\n   "]),
        ("\n\n", "a\n\n\nb", ["a\n\n\n", "b"]),
        ("\n\n", "a\nb\n\nc", ["a\nb\n\n", "c"]),
        ("\n\n", "a\n \t\n  b", ["a\n \t\n", "  b"]),
        ("\n\n", "a\r\n\r\nb\r\nc", ["a\r\n\r\n", "b\r\nc"]),
        ("\n\n", "a\r\nb", ["a\r\nb"]),
        ("\r\n", "a\nb", ["a\n", "b"]),
        ("--", "a--b---c-d", ["a--", "b---", "c-d"]),
        ("--", "--a--", ["--a--"]),
        (";", ";;a;b; c", [";;a;", "b;", " c"]),
        (";", "a; ;", ["a; ;"]),
        (";", "a; ; b", ["a;", " ; b"]),
        ("--", "a-- --", ["a-- --"]),
        ("ab", "xababy", ["xabab", "y"]),
        ("é", "caféé au lait", ["caféé", " au lait"]),
        ("🙂", "hi🙂 there🙂", ["hi🙂", " there🙂"]),
    ],
)
def test_pieces(delimiter: str, text: str, pieces: list[str]) -> None:
    assert LineSegmenter(delimiter).pieces(text) == pieces


def test_segment_trims_and_drops_blank_pieces() -> None:
    assert LineSegmenter().segment("  first\n\n  second  \n") == ["first", "second"]
    assert LineSegmenter("\n\n").segment("Para one\nstill one.\n\nPara two.") == [
        "Para one\nstill one.",
        "Para two.",
    ]


def test_empty_and_whitespace_only_text() -> None:
    assert LineSegmenter().spans("") == []
    assert LineSegmenter().pieces(" \n\n \n") == [" \n\n \n"]


def test_streaming_waits_until_the_run_of_newlines_ends() -> None:
    seg = LineSegmenter("\n\n")
    assert seg.find_boundary("a\n\n") is None  # a third newline would join the run
    assert seg.find_boundary("a\n\n  ") is None  # so would a newline after the spaces
    assert seg.find_boundary("a\n\n  b") == 3
    assert seg.find_boundary("a\r") is None
    assert LineSegmenter().find_boundary("a\r\n\rb") == 4
    stream = seg.stream()
    assert stream.feed("one\n") == []
    assert stream.feed("\n") == []
    assert stream.feed("\ntwo\n\nthr") == ["one\n\n\n", "two\n\n"]
    assert stream.close() == ["thr"]


def test_empty_delimiter_is_refused() -> None:
    with pytest.raises(ValueError, match="LineSegmenter needs a non-empty delimiter, got ''"):
        LineSegmenter("")
    with pytest.raises(TypeError, match="must be a str"):
        LineSegmenter(None)  # type: ignore[arg-type]


def test_spec_and_equality() -> None:
    assert LineSegmenter().spec == "line"
    assert LineSegmenter("\n\n").spec == "line:\\n\\n"
    assert LineSegmenter(":+\\").spec == "line:\\:\\+\\\\"
    assert LineSegmenter("\n") == LineSegmenter()
    assert LineSegmenter("\n\n") != LineSegmenter()
    assert len({LineSegmenter(), LineSegmenter("\n")}) == 1
    assert repr(LineSegmenter("\n\n")) == "segmenter_from_spec('line:\\\\n\\\\n')"
    assert LineSegmenter("--").delimiter == "--"
