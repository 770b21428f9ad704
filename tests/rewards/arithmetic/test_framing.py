"""The checker's three false positives of issue 15, each on a real model response.

Hypotheses a step tests, whole counts written as a floor (``36/5 = 7 full pens``) and hyphen
ranges (``rooms 10-35``) are not wrong arithmetic; the real errors next to them still are.
Rows are cited by their line in ``shared/external/step_traces.jsonl`` (1-based) and their id.
"""

from llenvs.rewards import NEUTRAL_SCORE, ArithmeticPRM
from llenvs.rewards.arithmetic import TokenKind, check_equations, tokenize
from tests.conftest import read_jsonl

STEP_TRACES = read_jsonl("step_traces.jsonl")


def step_row(line, id_):
    row = STEP_TRACES[line - 1]
    assert row["id"] == id_
    return row


def test_a_hypothesis_the_step_tests_and_corrects_is_not_an_error():
    # step_traces.jsonl line 102 (olympiadbench-610), step 2, labelled correct: "we need to
    # verify if the sequence will exceed 999 ... we get 0 + (15 - 1) * 71 = 999, which simplifies
    # to 14 * 71 = 994. Since 994 is less than 999, ..."
    row = step_row(102, "olympiadbench-610")
    step = row["steps"][2]
    assert row["labels"][2] == 1
    assert "0 + (15 - 1) * 71 = 999" in step and "14 * 71 = 994" in step
    [judgement] = ArithmeticPRM().judge_steps(row["problem"], [step])
    assert judgement.score == 1.0  # the corrected equation is right; the tested one is no claim
    [tested] = judgement.notes["failed"]
    assert tested["equation"] == "0 + (15 - 1) * 71 = 999"
    assert tested["hypothesis"] is True


def test_a_hypothesis_after_a_cue_or_asked_is_not_a_claim():
    prm = ArithmeticPRM()
    for step in (
        "Let's check if 12 * 4 = 46.",
        "Is 12 * 4 = 46?",
        "Suppose 5 + 3 = 9, then the total changes.",
        "We test whether 7 × 8 = 54.",
    ):
        [judgement] = prm.judge_steps("", [step])
        assert judgement.score == NEUTRAL_SCORE, step
        assert judgement.notes["verdict"] == "no arithmetic"
        assert all(f["hypothesis"] for f in judgement.notes["failed"])
    # the same equations claimed are still wrong, and a tested one that is right counts as right
    assert prm.score_steps("", ["So 12 * 4 = 46.", "Check if 12 * 4 = 48.", "12 * 4 = 46, ok"]) == [
        0.0,
        1.0,
        0.0,
    ]


def test_a_real_wrong_equation_inside_a_test_is_still_wrong(real_responses):
    # real_responses.jsonl line 20 (index 19): "we assume x = 4 and y = 2. Substituting ...
    # 2^{20} = 1024 \cdot 16 = 16384 \neq 16" — the arithmetic is wrong (2^20 = 1048576)
    # whatever it was testing, and no cue stands right before it.
    wrong = [c for c in check_equations(real_responses[19]["response"]) if not c.correct]
    assert any(c.text.startswith("2^{20} = 1024") and not c.hypothesis for c in wrong)


def test_a_whole_count_is_the_floor():
    # step_traces.jsonl line 19 (gsm8k-56), steps 3-10: "\( \frac{36}{5} = 7 \) full pens (with
    # a remainder of 1, but we only count complete full pens)" and so on for 43/5, 51/5, ...
    row = step_row(19, "gsm8k-56")
    steps = row["steps"][3:11]
    assert r"\frac{36}{5} = 7 \) full pens (with a remainder of 1" in steps[0]
    judgements = ArithmeticPRM().judge_steps(row["problem"], steps)
    assert [j.notes["verdict"] for j in judgements] == ["correct"] * 8
    assert r"\frac{36}{5} = 7" in judgements[0].notes["checked"]


def test_a_floor_needs_the_words_and_the_right_value():
    assert ArithmeticPRM().score_steps(
        "",
        [
            "36/5 = 7 full pens",
            "25 / 4 = 6 remainder 1",
            "36/5 = 7 pens",  # no word says whole: a wrong quotient
            "36/5 = 8 full pens",  # not the floor
            "-36/5 = -8 full pens",  # a negative count is no count
        ],
    ) == [1.0, 1.0, 0.0, 0.0, 0.0]


def test_a_hyphen_range_is_not_a_subtraction():
    # step_traces.jsonl line 146 (omnimath-141), step 4: "a single-digit room number (1-9), and
    # Paul has a double-digit room number (10-60): ... Paul can be in rooms 10-35 (since ...".
    # The checker finds no equation there; the ranges are each one POISON token, never ``-``.
    step = step_row(146, "omnimath-141")["steps"][4]
    tokens = tokenize(step)
    for written in ("1-9", "10-60", "10-35"):
        assert any(t.kind is TokenKind.POISON and t.text == written for t in tokens), written
    # a range in an equation is not checked as a subtraction (it was: 3 - 5 = -2 ≠ 3, 0.0)
    prm = ArithmeticPRM()
    assert prm.score_steps("", ["She read pages 3-5 = 3 pages.", "1-2 hours = 90 minutes"]) == [
        NEUTRAL_SCORE,
        NEUTRAL_SCORE,
    ]


def test_a_glued_subtraction_is_still_checked():
    # step_traces.jsonl line 187 (omnimath-871), step 3: "$2000-1001+1=1000$"
    step = step_row(187, "omnimath-871")["steps"][3]
    assert ("2000-1001+1=1000", True) in [(c.text, c.correct) for c in check_equations(step)]
    assert [(c.text, c.correct) for c in check_equations("So (15-1) * 71 = 999.")] == [
        ("(15-1) * 71 = 999", False)
    ]
    assert [c.correct for c in check_equations("x = 9-5 = 3")] == [False]
