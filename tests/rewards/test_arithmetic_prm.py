"""ArithmeticPRM on real model responses, including the issue's acceptance case."""

import pytest

from llenvs.core.segmenters import default_segmenter
from llenvs.rewards import NEUTRAL_SCORE, PRM, ArithmeticPRM, JudgingPRM


def test_response_10_scores_low_exactly_the_two_wrong_sums(real_responses):
    row = real_responses[10]
    pieces = default_segmenter().pieces(row["response"])
    judgements = ArithmeticPRM().judge_steps(row["prompt"], pieces)
    low = [(p, j) for p, j in zip(pieces, judgements, strict=True) if j.score < NEUTRAL_SCORE]
    assert len(low) == 2
    (first, first_j), (second, second_j) = low
    assert "= 6328" in first and first_j.score == 0.0
    assert "= 17186" in second and second_j.score == 0.0
    assert [f["left"] for f in first_j.notes["failed"]] == ["5968"]
    assert [f["left"] for f in second_j.notes["failed"]] == ["14486"]
    # every other step is either checked and right, or says it had nothing to check
    for piece, judgement in zip(pieces, judgements, strict=True):
        if piece in (first, second):
            continue
        assert judgement.notes["verdict"] in ("correct", "no arithmetic")
        assert judgement.score == (1.0 if judgement.notes["checked"] else NEUTRAL_SCORE)
    # the final total, 6328 + 17186 + 2100 = 25614, is right given those sums
    total = next(j for p, j in zip(pieces, judgements, strict=True) if "= 25614" in p)
    assert total.notes["verdict"] == "correct"


def test_every_real_response_scores_without_error(real_responses):
    prm = ArithmeticPRM()
    segmenter = default_segmenter()
    flagged = {}
    for index, row in enumerate(real_responses):
        pieces = segmenter.pieces(row["response"])
        scores = prm.score_steps(row["prompt"], pieces)
        assert len(scores) == len(pieces)
        assert all(s in (0.0, NEUTRAL_SCORE, 1.0) for s in scores)
        flagged[index] = sum(s == 0.0 for s in scores)
    # Wrong sums in the responses whose final answers are wrong because of arithmetic (checked by
    # hand): 8's long sum is 19826, not 18,920; 11's is 17774, not 16280; 15 repeats a wrong
    # table; 19 claims 2^{20} = 1024 \cdot 16.
    assert {i for i, n in flagged.items() if n} == {8, 10, 11, 15, 19}


def test_the_leg_counting_responses_check_their_products_with_units(real_responses):
    pieces = default_segmenter().pieces(real_responses[0]["response"])
    judgements = ArithmeticPRM().judge_steps("", pieces)
    checked = [c for j in judgements for c in j.notes["checked"]]
    assert "6 legs × 5 = 30 legs" in checked
    assert "30 + 30 + 52 + 70 + 0 + 48 + 32 + 4 = 266" in checked


def test_neutral_steps_say_so():
    [judgement] = ArithmeticPRM().judge_steps("q", ["Let me think about the animals."])
    assert judgement.score == NEUTRAL_SCORE
    assert judgement.notes == {"verdict": "no arithmetic", "checked": [], "failed": []}


def test_blank_steps_are_neutral():
    assert ArithmeticPRM().score_steps("q", ["", "  \n\n"]) == [NEUTRAL_SCORE] * 2


def test_neutral_is_configurable_and_validated():
    assert ArithmeticPRM(neutral=0.0).score_steps("q", ["words"]) == [0.0]
    with pytest.raises(ValueError, match=r"neutral must be in \[0, 1\], got 2"):
        ArithmeticPRM(neutral=2)
    with pytest.raises(TypeError, match="neutral must be a number"):
        ArithmeticPRM(neutral="0.5")


def test_it_is_a_judging_prm_whose_judgements_carry_its_scores():
    """What ``JudgingPRM`` promises: one judgement per step, scoring as ``score_steps`` does."""
    prm = ArithmeticPRM()
    assert isinstance(prm, PRM) and isinstance(prm, JudgingPRM)
    steps = ["2 + 2 = 4", "so 3 × 3 = 10", "Let me see.", ""]
    judgements = prm.judge_steps("q", steps)
    assert [j.score for j in judgements] == list(prm.score_steps("q", steps))
    assert [j.score for j in judgements] == [1.0, 0.0, NEUTRAL_SCORE, NEUTRAL_SCORE]
    assert [j.notes["verdict"] for j in judgements[:3]] == ["correct", "wrong", "no arithmetic"]
