"""PatternSegmenter: default and custom patterns, cut placement, streaming, errors."""

from __future__ import annotations

import time

import pytest

from llenvs.core.segmenters import DEFAULT_PATTERNS, PatternSegmenter
from tests.core.segmenters.segmenter_cases import AIME_TEXT, GUIDE_PATTERNS, REPLAY_TEXT

SEG = PatternSegmenter()


def test_guide_aime_example_gives_three_steps() -> None:
    assert SEG.pieces(AIME_TEXT) == [
        "Step 1: Identify the given information.\n",
        "Step 2: Set up the equation.\n",
        "Step 3: Solve for x = 42.\n<answer>42</answer>",
    ]
    assert len(SEG.segment(AIME_TEXT)) == 3


@pytest.mark.parametrize(
    ("text", "pieces"),
    [
        (
            "Plan:\n1. Add.\n2) Divide.\n(3) Done.",
            ["Plan:\n", "1. Add.\n", "2) Divide.\n", "(3) Done."],
        ),
        ("Intro.\n  1. Add.", ["Intro.\n  ", "1. Add."]),
        ("x\n3.14 is pi", ["x\n3.14 is pi"]),
        ("x\n2023. A year", ["x\n2023. A year"]),
        ("Look. Therefore, x = 2.", ["Look. ", "Therefore, x = 2."]),
        (
            "First, add. Next, divide. Finally, stop.",
            ["First, add. ", "Next, divide. ", "Finally, stop."],
        ),
        (
            "Add.\nSo x = 2. Thus y = 3. Hence done.",
            ["Add.\n", "So x = 2. ", "Thus y = 3. ", "Hence done."],
        ),
        ("We also think so. Solve it.", ["We also think so. Solve it."]),
        ("1. First, add.\n2. Then divide.", ["1. First, add.\n", "2. Then divide."]),
        (
            "Intro.\n### Step 1: Add\n**Step 2:** Divide",
            ["Intro.\n", "### Step 1: Add\n", "**Step 2:** Divide"],
        ),
        ("Intro.\n- So we add.\n- Wait, no.", ["Intro.\n", "- So we add.\n", "- Wait, no."]),
        ("We see. Let me check it. Let's go.", ["We see. ", "Let me check it. ", "Let's go."]),
        ("Therefore, at the start nothing is cut.", ["Therefore, at the start nothing is cut."]),
        ("no steps here", ["no steps here"]),
    ],
)
def test_default_patterns(text: str, pieces: list[str]) -> None:
    assert SEG.pieces(text) == pieces


def test_replay_example_with_default_patterns() -> None:
    assert SEG.pieces(REPLAY_TEXT) == [
        "First, count the animals. There are 2 dogs.\nDogs have 4 legs each. ",
        "So 2 × 4 = 8. <answer>8</answer>",
    ]


def test_guide_custom_patterns_cut_at_the_first_non_space_character_of_a_match() -> None:
    seg = PatternSegmenter(patterns=GUIDE_PATTERNS)
    assert seg.pieces("Intro 1. Add 2: Divide. So, done") == [
        "Intro ",
        "1. Add ",
        "2: Divide. ",
        "So, done",
    ]
    assert seg.pieces("1. At the start") == ["1. At the start"]
    assert seg.pieces("Thus x") == ["Thus x"]  # a match at position 0 cuts nothing


def test_caret_matches_at_real_line_starts_only() -> None:
    seg = PatternSegmenter((r"^Step",))
    assert seg.pieces("a Step b\nStep c Step") == ["a Step b\n", "Step c Step"]
    stream = seg.stream()
    assert stream.feed("x\nStep 1 and Step 2 and more text that is long enough") == ["x\n"]
    assert stream.close() == ["Step 1 and Step 2 and more text that is long enough"]


def test_whitespace_only_matches_cut_at_their_end() -> None:
    text = "a\n\nb\n\n\n\nc\n\n"
    # every match counts, overlapping ones too: "\n\n" also matches inside "\n\n\n\n"
    assert PatternSegmenter((r"\n\n",)).pieces(text) == ["a\n\n", "b\n\n", "\n\nc\n\n"]
    assert PatternSegmenter((r"\n{2,}",)).pieces(text) == ["a\n\n", "b\n\n\n\n", "c\n\n"]


def test_zero_width_patterns() -> None:
    assert PatternSegmenter((r"(?=Step)",)).pieces("Go Step 1 Step 2") == [
        "Go ",
        "Step 1 ",
        "Step 2",
    ]


def test_streaming_waits_for_lookahead_characters_after_a_match() -> None:
    assert SEG.find_boundary("Add.\nStep 2: and more") is None
    text = "Add.\nStep 2: divide the total by two."
    assert SEG.find_boundary(text) == 5
    assert PatternSegmenter((r"So\b",)).find_boundary("a So") is None  # "Some" would not match
    stream = SEG.stream()
    assert stream.feed("Add.\nStep 2: divide ") == []
    assert stream.feed("the total by two.") == ["Add.\n"]
    assert stream.close() == ["Step 2: divide the total by two."]


def test_bad_patterns_are_refused() -> None:
    with pytest.raises(ValueError, match=r"pattern '\(' is not a valid regular expression"):
        PatternSegmenter(("(",))
    with pytest.raises(ValueError, match="at least one pattern"):
        PatternSegmenter(())
    with pytest.raises(ValueError, match="matches the empty string"):
        PatternSegmenter((r"\s*",))
    with pytest.raises(TypeError, match="sequence of patterns"):
        PatternSegmenter("Step")
    with pytest.raises(TypeError, match="must be a str"):
        PatternSegmenter((1,))  # type: ignore[arg-type]


def test_spec_and_equality() -> None:
    assert SEG.spec == "pattern"
    assert PatternSegmenter(DEFAULT_PATTERNS) == SEG
    assert PatternSegmenter(list(GUIDE_PATTERNS)) == PatternSegmenter(GUIDE_PATTERNS)
    assert PatternSegmenter(GUIDE_PATTERNS).spec == (
        r"pattern:(?\:^|\\s)\\d\+[.\:]\\s:(?\:^|\\s)(?\:So|Thus|Hence),?\\s"
    )
    assert PatternSegmenter(("a",)) != PatternSegmenter(("b",))
    assert PatternSegmenter(("a",)).patterns == ("a",)


class _QuickTimeout(PatternSegmenter):
    timeout = 0.2


def test_a_catastrophically_backtracking_pattern_times_out_with_a_clear_error() -> None:
    slow = _QuickTimeout((r"(a|aa)+$",))
    started = time.perf_counter()
    with pytest.raises(TimeoutError, match=r"pattern '\(a\|aa\)\+\$'.*backtracks"):
        slow.spans("x " + "a" * 60 + "b")
    assert time.perf_counter() - started < 5
    stream = slow.stream()
    with pytest.raises(TimeoutError, match="backtracks"):
        stream.feed("x " + "a" * 60 + "b")


def test_the_issue_example_never_hangs() -> None:
    started = time.perf_counter()
    try:  # the regex engine may solve (a+)+$ quickly; either way it must not hang
        _QuickTimeout((r"(a+)+$",)).spans("x " + "a" * 40 + "b")
    except TimeoutError as err:
        assert "backtracks" in str(err)
    assert time.perf_counter() - started < 5
