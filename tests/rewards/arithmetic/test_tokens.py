from fractions import Fraction

import pytest

from llenvs.rewards.arithmetic import TokenKind, tokenize


def kinds(text):
    return [t.kind.name for t in tokenize(text)]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("17,745", Fraction(17745)),
        ("1,234,567.5", Fraction(2469135, 2)),
        ("17{,}745", Fraction(17745)),
        (r"17\,745", Fraction(17745)),
        ("0.25", Fraction(1, 4)),
        (".5", Fraction(1, 2)),
        ("40%", Fraction(2, 5)),
        (r"40\%", Fraction(2, 5)),
    ],
)
def test_numbers(text, value):
    [token] = tokenize(text)
    assert token.kind is TokenKind.NUM and token.value == value


@pytest.mark.parametrize("text", ["2x", "x2", "1st", "5kg", "1.2.3", "W_1"])
def test_numbers_glued_to_letters_or_numbers_are_poison(text):
    assert "POISON" in kinds(text) and "NUM" not in kinds(text)


@pytest.mark.parametrize("text", ["3,5", "3:2"])
def test_punctuation_glued_between_digits_is_poison(text):
    assert kinds(text) == ["NUM", "POISON", "NUM"]


def test_operators_are_normalised():
    ops = [
        t.text for t in tokenize(r"1 + 2 - 3 − 4 * 5 × 6 · 7 \times 8 \cdot 9 / 1 ÷ 2 \div 3 ^ 4")
    ]
    assert [o for o in ops if not o.isdigit()] == list("+--×××××/÷÷^")


def test_a_lone_x_between_numbers_is_times_and_elsewhere_a_variable():
    assert kinds("2 x 60") == ["NUM", "OP", "NUM"]
    assert kinds("2 x + 3") == ["NUM", "POISON", "OP", "NUM"]


def test_signs_and_binary_minus():
    assert kinds("= -5") == ["EQ", "SIGN", "NUM"]
    assert kinds("3 - 5") == ["NUM", "OP", "NUM"]
    assert kinds("(-2)") == ["LPAREN", "SIGN", "NUM", "RPAREN"]


def test_breaks_skips_and_words():
    assert kinds("**Total:** 6 legs") == ["WORD", "BREAK", "NUM", "WORD"]
    assert kinds(r"<answer>4</answer> \neq \quad") == ["BREAK", "NUM", "BREAK", "BREAK", "BREAK"]
    assert kinds(r"\text{ cups} \sqrt{2}") == ["WORD", "POISON", "LBRACE", "NUM", "RBRACE"]
    assert kinds("5! Great!") == ["NUM", "POISON", "WORD", "BREAK"]
    run = tokenize("legs in total")
    assert [(t.kind.name, t.text) for t in run] == [("WORD", "legs in total")]
    split = tokenize("half of 10")
    assert kinds("half of 10") == ["POISON", "WORD", "NUM"] and split[1].prefix_poison
