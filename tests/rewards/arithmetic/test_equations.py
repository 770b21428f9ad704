"""The exact checker on hand-written cases: what it checks, and what must not fool it."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llenvs.rewards.arithmetic import check_equations


def verdicts(text):
    return [(c.text, c.correct) for c in check_equations(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2 + 3 + 4 = 9", [("2 + 3 + 4 = 9", True)]),
        ("2 + 3 + 4 = 10", [("2 + 3 + 4 = 10", False)]),
        ("2 + 3 × 4 = 14", [("2 + 3 × 4 = 14", True)]),
        ("2 + 3 × 4 = 20", [("2 + 3 × 4 = 20", False)]),
        ("(2 + 3) × 4 = 20", [("(2 + 3) × 4 = 20", True)]),
        ("8 ÷ 2 × 4 = 16", [("8 ÷ 2 × 4 = 16", True)]),
        ("8 / 2 / 2 = 2", [("8 / 2 / 2 = 2", True)]),
        ("-2^2 = -4", [("-2^2 = -4", True)]),
        ("(-2)^2 = 4", [("(-2)^2 = 4", True)]),
        ("2^3^2 = 512", [("2^3^2 = 512", True)]),
        ("5 - -3 = 8", [("5 - -3 = 8", True)]),
        ("3² + 4² = 25", [("3² + 4² = 25", True)]),
        ("2 x 60 x 60 x 1 = 7200", [("2 x 60 x 60 x 1 = 7200", True)]),
        ("2(3 + 4) = 14", [("2(3 + 4) = 14", True)]),
        ("1.5 × 10^3 = 1500", [("1.5 × 10^3 = 1500", True)]),
        ("0.1 + 0.2 = 0.3", [("0.1 + 0.2 = 0.3", True)]),
        ("2 + 2 == 4", [("2 + 2 == 4", True)]),
        ("90° + 45° = 135°", [("90° + 45° = 135°", True)]),
    ],
)
def test_plain_arithmetic_with_precedence(text, expected):
    assert verdicts(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a = 2 + 3 = 5", [("2 + 3 = 5", True)]),
        ("2 + 3 = 5 = 6", [("2 + 3 = 5", True), ("5 = 6", False)]),
        ("2 * 3 = 6 = 2 × 3", [("2 * 3 = 6", True), ("6 = 2 × 3", True)]),
        (
            "(146 + 242) * 6 = 388 * 6 = 2328 legs",
            [("(146 + 242) * 6 = 388 * 6", True), ("388 * 6 = 2328 legs", True)],
        ),
        ("2 + 2 = 4. 3 + 3 = 7.", [("2 + 2 = 4", True), ("3 + 3 = 7", False)]),
    ],
)
def test_chains_give_one_equation_per_equals_sign(text, expected):
    assert verdicts(text) == expected


@pytest.mark.parametrize(
    ("text", "correct"),
    [
        ("964 + 4,072 + 5,160 = 10,196", True),
        ("964 + 4,072 = 5,037", False),
        ("1,234,567 + 1 = 1,234,568", True),
        ("17{,}745 - 745 = 17000", True),
        ("10 / 3 = 3.33", True),  # rounded
        ("2/3 = 0.66", True),  # truncated
        ("2/3 = 0.65", False),
        ("15 / 4 = 4", False),  # an integer is exact
        ("3.14 × 2 = 6.28", True),
        ("50% × 20 = 10", True),
        ("100% - 40% = 60%", True),
        ("0.6 × 100 = 60%", True),  # % as a count of percent
        ("0.6 × 100 = 61%", False),
    ],
)
def test_thousands_decimals_and_percentages(text, correct):
    [check] = check_equations(text)
    assert check.correct is correct


@pytest.mark.parametrize(
    ("text", "correct"),
    [
        (r"\frac{3}{4} + \frac{1}{4} = 1", True),
        (r"3 \times 4 = 12", True),
        (r"3 \cdot 4 = 13", False),
        (r"12 \div 4 = 3", True),
        (r"\dfrac{6}{3} = 2", True),
        (r"\frac{2 \times 2}{256} = \frac{1}{64}", True),
        (r"\( 2^{10} = 1024 \)", True),
        (
            r"\left(\frac{1}{2}\right)^3 - \frac{13}{4} \left(\frac{1}{2}\right)^2"
            r" = -\frac{11}{16}",
            True,
        ),
        (r"\frac{550 \text{ cups}}{110 \text{ cups/bag}} = 5 \text{ bags}", True),
        (r"1 \text{ cup/day} \times 180 \text{ days} = 180 \text{ cups}", True),
        (r"\boxed{3 + 4 = 8}", False),
    ],
)
def test_simple_latex(text, correct):
    [check] = check_equations(text)
    assert check.correct is correct


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Bees: 6 legs × 5 = 30 legs", [("6 legs × 5 = 30 legs", True)]),
        ("- 9 crabs × 10 legs = 90 legs", [("9 crabs × 10 legs = 90 legs", True)]),
        ("6 legs × 5 = 31 legs", [("6 legs × 5 = 31 legs", False)]),
        ("so 5 chickens have 5 * 2 = 10 legs", [("5 * 2 = 10 legs", True)]),
        ("- 3 flatworms = 3 * 0 = 0 legs", [("3 * 0 = 0 legs", True)]),
        (
            "5664 (insects) + 376 (horses) = 6040 legs",
            [("5664 (insects) + 376 (horses) = 6040 legs", True)],
        ),
        ("2 × 60 = 120 minutes = 2 hours", [("2 × 60 = 120 minutes", True)]),
        ("I have 2 + 3 = 5 apples", [("2 + 3 = 5 apples", True)]),
        ("$5 × 3 = $15", [("5 × 3 = $15", True)]),
    ],
)
def test_units_between_numbers_and_operators(text, expected):
    assert verdicts(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Step 2: compute the total.",
        "1. First, 2. Second, 3. Third",
        "On 2024-05-01 we met at 3:00.",
        "x = 2",
        "2x + 3 = 7",
        "x = 3, so 2x = 6",
        "f(2) = 5",
        "gcd(12, 18) = 6",
        r"\sqrt{16} = 4",
        "√16 = 4",
        r"\left\lfloor \frac{36}{5} \right\rfloor = 7",
        r"\left[ 22.8 \right] = 22",
        "5! = 120",
        "3 × 5! = 360",
        "half of 10 = 5",
        "twice 7 = 14",
        "40% of 50 = 20",
        "3 squared = 9",
        "3 times 4 = 12",
        "2 dozen × 3 = 72",
        "2 and a half × 2 = 5",
        "5 cm^2 × 2 = 10 cm^2",
        "1 + 2 + ... + 10 = 55",
        "1 + 2 + … + 10 = 55",
        "3:2 = 1.5",
        "3,5 × 2 = 7",
        "20 + 10% = 22",
        "17 mod 5 = 2",
        "2^10 mod 1000 = 24",
        "1024 = 24 (mod 1000)",
        "6/2(1+2) = 9",
        "2 (3 more than 1) = 4",
        "1 / 0 = 0",
        "10^{1000000} = 1",
        "2^{1/2} = 1.414",
        "sin 30 = 0.5",
        "log 100 = 2",
        "W_1 + 2 = 5",
        "a(1 + 3/2) = 40",
        "2 + 2 ≠ 5",
        "2 + 2 ≈ 4.1",
        r"2 + 2 \neq 5",
        "2 hours = 120 minutes",
        "12 = 3 × 4 is a lone number on the left",
        "<answer>4</answer>",
        "",
        "   \n\n",
    ],
)
def test_nothing_to_check_in_non_equations(text):
    assert check_equations(text) == []


def test_positions_and_values_point_into_the_text():
    text = "Sum: 596 + 912 = 1408 legs, then more prose."
    [check] = check_equations(text)
    assert text[check.start : check.end] == check.text == "596 + 912 = 1408 legs"
    assert (check.left, check.right, check.correct) == (Fraction(1508), Fraction(1408), False)
    assert check.as_dict() == {
        "equation": "596 + 912 = 1408 legs",
        "left": "1508",
        "right": "1408",
        "correct": False,
    }


# Property tests: any arithmetic the grammar below writes, in plain text or LaTeX, is checked
# exactly; a result that is off by anything is caught.


@st.composite
def expressions(draw, depth=3, top=True):
    if depth == 0 or (not top and draw(st.booleans())):
        n = draw(st.integers(0, 999))
        return str(n), str(n), Fraction(n)
    op = draw(st.sampled_from(["+", "-", "*", "/"]))
    left = draw(expressions(depth=depth - 1, top=False))
    right = draw(expressions(depth=depth - 1, top=False))
    if op == "/" and right[2] == 0:
        op = "+"
    value = {
        "+": left[2] + right[2],
        "-": left[2] - right[2],
        "*": left[2] * right[2],
        "/": left[2] / right[2] if right[2] else None,
    }[op]
    plain = f"({left[0]} {op} {right[0]})"
    latex_op = {"+": "+", "-": "-", "*": r"\times", "/": None}[op]
    if latex_op is None:
        latex = rf"\frac{{{left[1]}}}{{{right[1]}}}"
    else:
        latex = rf"\left({left[1]} {latex_op} {right[1]}\right)"
    return plain, latex, value


def _written(value):
    if value.denominator == 1:
        return str(value.numerator)
    return rf"\frac{{{value.numerator}}}{{{value.denominator}}}"


@settings(max_examples=200, deadline=None)
@given(expressions(), st.sampled_from(["plain", "latex"]), st.integers(1, 5))
def test_any_written_arithmetic_is_checked_exactly(expression, form, off):
    plain, latex, value = expression
    left = plain if form == "plain" else latex
    prefix = "We compute: "
    [right_check] = check_equations(f"{prefix}{left} = {_written(value)}.")
    assert right_check.left == value and right_check.correct
    [wrong_check] = check_equations(f"{prefix}{left} = {_written(value + off)}.")
    assert not wrong_check.correct


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_never_raises_on_any_text(text):
    for check in check_equations(text):
        assert text[check.start : check.end] == check.text
