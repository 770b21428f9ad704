from fractions import Fraction

import pytest

from llenvs.rewards.arithmetic import parse_expression, tokenize


def parsed(text):
    tokens = tokenize(text)
    return parse_expression(tokens, 0, len(tokens)), tokens


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2 + 3 × 4", 14),
        ("(2 + 3) × 4", 20),
        ("2 ^ 3 ^ 2", 512),
        ("-2^2", -4),
        ("2(3)(4)", 24),
        ("12 / 4 / 3", 1),
        (r"\frac{1}{3} + \frac{1}{6}", Fraction(1, 2)),
        ("6 legs × 5", 30),
        ("100% - 40%", Fraction(3, 5)),
    ],
)
def test_values(text, value):
    expression, tokens = parsed(text)
    assert expression.value == value and expression.end == len(tokens)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("1 / 0", "division by zero"),
        ("2 ^ (1/2)", "a fractional power"),
        ("10 ^ 100000", "a power too large to compute"),
        ("20 + 10%", "a percentage added to a plain number"),
    ],
)
def test_values_it_will_not_compute_say_why(text, reason):
    expression, _ = parsed(text)
    assert expression.value is None and expression.reason == reason


def test_it_stops_where_arithmetic_stops():
    expression, tokens = parsed("5 cm^2")  # a unit stops the power
    assert tokens[expression.end].text == "^"
    expression, tokens = parsed("6/2(1+2)")  # ambiguous: an implicit product after a division
    assert expression.value == 3 and tokens[expression.end].text == "("


def test_bare_numbers_and_their_units():
    expression, _ = parsed("30 legs")
    assert (expression.bare, expression.units, expression.decimals) == (True, ("legs",), 0)
    expression, _ = parsed("-3.25")
    assert expression.bare and expression.decimals == 2
    expression, _ = parsed("3 + 0")
    assert not expression.bare


def test_deep_nesting_is_refused_not_a_crash():
    assert parsed("(" * 500 + "1" + ")" * 500)[0] is None
