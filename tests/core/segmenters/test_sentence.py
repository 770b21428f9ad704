"""SentenceSegmenter: the guide's examples, the rules, streaming decisions, golden rules."""

from __future__ import annotations

import pytest

from llenvs.core.segmenters import SentenceSegmenter
from tests.core.segmenters.segmenter_cases import REPLAY_TEXT, read_jsonl

SEG = SentenceSegmenter()


def test_guide_example() -> None:
    assert SEG.segment("First step. Second step! Third?") == [
        "First step.",
        "Second step!",
        "Third?",
    ]
    assert SEG.pieces("First step. Second step! Third?") == [
        "First step. ",
        "Second step! ",
        "Third?",
    ]


def test_replay_example_gives_four_steps_and_keeps_the_answer_tag() -> None:
    assert SEG.pieces(REPLAY_TEXT) == [
        "First, count the animals. ",
        "There are 2 dogs.\n",
        "Dogs have 4 legs each. ",
        "So 2 × 4 = 8. <answer>8</answer>",
    ]


@pytest.mark.parametrize(
    ("text", "pieces"),
    [
        ("x = 2. The total is 4.", ["x = 2. ", "The total is 4."]),
        ("Pi is 3.14 or so. Next.", ["Pi is 3.14 or so. ", "Next."]),
        ("See e.g. Smith. Then go.", ["See e.g. Smith. ", "Then go."]),
        ("That is, i.e. This one.", ["That is, i.e. This one."]),
        ("Cats vs. Dogs is old.", ["Cats vs. Dogs is old."]),
        ("Apples, pears, etc. are fruit.", ["Apples, pears, etc. are fruit."]),
        (
            "Ask Dr. Smith. Mr. Jones and Mrs. Lee agree.",
            ["Ask Dr. Smith. ", "Mr. Jones and Mrs. Lee agree."],
        ),
        ("As Fig. 3 shows, approx. 5 remain.", ["As Fig. 3 shows, approx. 5 remain."]),
        ("Item No. 5 is here. No. It is not.", ["Item No. 5 is here. ", "No. ", "It is not."]),
        ("Turn to p. 55. Then stop.", ["Turn to p. 55. ", "Then stop."]),
        ("Let the number be x. Then 2x = 10.", ["Let the number be x. ", "Then 2x = 10."]),
        ("1. First we add.\n2. Then we divide.", ["1. First we add.\n", "2. Then we divide."]),
        ("Step 2. Add them. Done.", ["Step 2. Add them. ", "Done."]),
        ("Wait... What? Really?! Yes!!", ["Wait... ", "What? ", "Really?! ", "Yes!!"]),
        ('He said "Stop." Then left.', ['He said "Stop." ', "Then left."]),
        ('He said "Stop." she said.', ['He said "Stop." she said.']),
        ("(It is odd.) So we stop.", ["(It is odd.) ", "So we stop."]),
        ('Done. "Next," he said.', ["Done. ", '"Next," he said.']),
        ("Done. (See below.)", ["Done. ", "(See below.)"]),
        (
            "Jonas E. Smith came. You and I. Did it.",
            ["Jonas E. Smith came. ", "You and I. ", "Did it."],
        ),
        ("Take point A. Then B.", ["Take point A. ", "Then B."]),
        ("It is big [...] and red. Ok.", ["It is big [...] and red. ", "Ok."]),
        ("So 2 × 4 = 8. <answer>8</answer>", ["So 2 × 4 = 8. <answer>8</answer>"]),
        ("The answer is 5. $x = 5$ works.", ["The answer is 5. ", "$x = 5$ works."]),
        ("Done. **Answer:** 5", ["Done. ", "**Answer:** 5"]),
        ("Fini. Été chaud. 中文。", ["Fini. ", "Été chaud. ", "中文。"]),
        ("A line\nwithout end punctuation", ["A line\nwithout end punctuation"]),
        ("Trailing text without punctuation", ["Trailing text without punctuation"]),
        ("Ends.  \n", ["Ends.  \n"]),
        ("  Leading space. Next", ["  Leading space. ", "Next"]),
        ("Hello.World. Here", ["Hello.World. ", "Here"]),
        ("One.\r\nTwo.", ["One.\r\n", "Two."]),
    ],
)
def test_pieces(text: str, pieces: list[str]) -> None:
    assert SEG.pieces(text) == pieces


def test_find_boundary_waits_for_the_next_sentence_to_start() -> None:
    assert SEG.find_boundary("x = 3.") is None  # may continue as 3.14
    assert SEG.find_boundary("x = 3. ") is None
    assert SEG.find_boundary("x = 3.14") is None
    assert SEG.find_boundary("x = 3. Then") == 7
    assert SEG.find_boundary("x = 3. T") == 7
    assert SEG.find_boundary("x = 3. <") is None  # a tag does not start a sentence
    assert SEG.find_boundary('Done. "') is None  # '"so' would not start a sentence
    assert SEG.find_boundary('Done. "S') == 6
    assert SEG.find_boundary("We met E. ") is None
    assert SEG.find_boundary("He met E. J") is None  # "E. J." would be initials
    assert SEG.find_boundary("He met E. Jo") == 10
    assert SEG.find_boundary("So 2 × 4 = 8. <answer>8</answer>") is None


def test_stream_of_the_replay_example() -> None:
    stream = SEG.stream()
    assert stream.feed("First, count the animals. Th") == ["First, count the animals. "]
    assert stream.feed("ere are 2 dogs.\nDogs have 4 legs each. So 2 × 4 = 8. <ans") == [
        "There are 2 dogs.\n",
        "Dogs have 4 legs each. ",
    ]
    assert stream.feed("wer>8</answer>") == []
    assert stream.close() == ["So 2 × 4 = 8. <answer>8</answer>"]


def test_resume_keeps_streaming_linear_and_exact() -> None:
    text = "word " * 2000 + "end. Next"
    assert SEG.first_cut(text, resume=9000) == SEG.first_cut(text)
    assert SEG.first_cut("word " * 20).settled == 100


def test_golden_rules_score_does_not_regress() -> None:
    rows = read_jsonl("golden_rules_en.jsonl")
    passed = [
        row["id"]
        for row in rows
        if [s.strip() for s in SEG.segment(row["text"]) if s.strip()] == row["sentences"]
    ]
    assert len(rows) == 48
    assert len(passed) >= 39, sorted({row["id"] for row in rows} - set(passed))
