"""What a number box's text comes to (``read_number``): used, clamped with a note, or refused.

Properties over any bound and any text: a number in range is used as typed; one outside is
clamped to the nearest end (the note says to what and the range) or refused (the message names
the range and the text); anything else is refused, never raised.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from llenvs.core import MAX_TOKENS, SAMPLES, SEED, Bound
from llenvs.workbench import (
    TEMPERATURE,
    FloatBound,
    NumberEntry,
    OutOfRange,
    allowed,
    read_number,
)

MODES = st.sampled_from(OutOfRange)


@st.composite
def bounds(draw) -> Bound:
    low = draw(st.integers(-(10**12), 10**12))
    return Bound("n", low, low + draw(st.integers(0, 10**12)), draw(st.sampled_from(["", "why"])))


@st.composite
def float_bounds(draw) -> FloatBound:
    finite = st.floats(-1e9, 1e9, allow_nan=False, allow_infinity=False)
    low, high = sorted((draw(finite), draw(finite)))
    return FloatBound("x", low, high)


@settings(max_examples=200, deadline=None)
@given(bounds(), st.data(), MODES)
def test_a_whole_number_in_range_is_used_as_typed(bound, data, mode):
    number = data.draw(st.integers(bound.low, bound.high))
    spelling = data.draw(
        st.sampled_from([str(number), f" {number} ", f"{number}.0", f"{number:_}"])
    )
    assert read_number(spelling, bound, mode) == NumberEntry(number)


@settings(max_examples=200, deadline=None)
@given(bounds(), st.integers(1, 10**30), st.booleans())
def test_a_whole_number_outside_is_refused_naming_the_range(bound, past, above):
    number = bound.high + past if above else bound.low - past
    entry = read_number(str(number), bound, OutOfRange.REFUSE, "the box")
    assert entry.value is None
    assert entry.problem == f"the box {bound.describe()}, got {number}"
    assert f"must be {bound.low}..{bound.high}" in entry.problem


@settings(max_examples=200, deadline=None)
@given(bounds(), st.integers(1, 10**30), st.booleans())
def test_a_whole_number_outside_is_clamped_to_the_nearest_end_and_says_so(bound, past, above):
    number = bound.high + past if above else bound.low - past
    entry = read_number(str(number), bound, OutOfRange.CLAMP)
    end = bound.high if above else bound.low
    assert entry.value == end and entry.problem is None
    assert entry.note == f"n {number} clamped to {end} (allowed {bound.low}..{bound.high})"


NUMERIC = st.from_regex(r"\s*[+-]?\d{0,25}(\.\d{0,5})?([eE][+-]?\d{1,3})?\s*", fullmatch=True)


@settings(max_examples=300, deadline=None)
@given(st.one_of(bounds(), float_bounds()), st.one_of(st.text(max_size=60), NUMERIC), MODES)
def test_any_text_gives_a_number_in_range_or_a_refusal_never_an_exception(bound, text, mode):
    entry = read_number(text, bound, mode)
    if entry.value is None:
        assert entry.problem is not None and allowed(bound) in entry.problem
        return
    assert bound.low <= entry.value <= bound.high
    assert isinstance(entry.value, int if isinstance(bound, Bound) else float)
    typed = Decimal(text.strip())  # a number, since one is used: a note iff it was outside
    inside = Decimal(repr(bound.low)) <= typed <= Decimal(repr(bound.high))
    assert (entry.note is None) == inside


@settings(max_examples=200, deadline=None)
@given(float_bounds(), st.data(), MODES)
def test_a_real_number_in_range_is_used_as_typed(bound, data, mode):
    # + 0.0 folds -0.0 into 0.0: hypothesis has no float between 0.0 and -0.0 (low, high)
    number = data.draw(st.floats(bound.low + 0.0, bound.high + 0.0))
    assert read_number(repr(number), bound, mode) == NumberEntry(number)


@settings(max_examples=200, deadline=None)
@given(float_bounds(), st.floats(allow_nan=False, allow_infinity=False), MODES)
def test_a_real_number_outside_is_clamped_or_refused(bound, number, mode):
    assume(not bound.low <= number <= bound.high)
    entry = read_number(repr(number), bound, mode)
    if mode is OutOfRange.REFUSE:
        assert entry.value is None and entry.problem == f"x {bound.describe()}, got {number!r}"
    else:
        end = bound.low if number < bound.low else bound.high
        assert entry.value == end
        assert entry.note is not None and entry.note.endswith(f"(allowed {allowed(bound)})")


def test_the_issues_two_numbers_in_the_samples_box():
    """Issue 50, item 2: the two numbers typed into Resample's samples box."""
    huge = read_number("99999999999999999999", SAMPLES, name="samples")
    assert huge.value is None
    assert huge.problem == (
        "samples must be 1..16 (the resamples of one intervention, generated together), "
        "got 99999999999999999999"
    )
    zero = read_number("0", SAMPLES, OutOfRange.CLAMP, "samples")
    assert zero == NumberEntry(1, "samples 0 clamped to 1 (allowed 1..16)")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("", "''"),
        ("2.5", "'2.5'"),
        ("abc", "'abc'"),
        ("nan", "'nan'"),
        ("-inf", "'-inf'"),
        ("0x10", "'0x10'"),
        ("1e999999999999999999999", "'1e999999999999999999999'"),
    ],
)
def test_a_text_that_is_no_integer_is_refused_in_either_mode(text, shown):
    for mode in OutOfRange:
        entry = read_number(text, MAX_TOKENS, mode, "max tokens")
        assert entry == NumberEntry(None, f"max tokens must be an integer 1..131072, got {shown}")


def test_spellings_of_one_number_are_read_alike():
    assert {read_number(t, SEED).value for t in ("1000", "1e3", "1_000", "+1000", "1000.")} == {
        1000
    }
    assert read_number(".5", TEMPERATURE).value == 0.5
    assert read_number("0.01", FloatBound("w", 0.01, 1.0)).value == 0.01  # the end itself


def test_a_pasted_page_is_cut_in_the_message():
    entry = read_number("9" * 5000, SAMPLES)
    assert entry.problem is not None and len(entry.problem) < 200
    assert entry.problem.endswith(f"got {'9' * 40}… (5000 characters)")


def test_a_real_range_names_its_ends_shortly():
    assert allowed(TEMPERATURE) == "0..2"
    assert allowed(FloatBound("w", 0.01, 1.0)) == "0.01..1"
    assert allowed(FloatBound("w", 0.1 + 0.2, 1.0)) == "0.30000000000000004..1"
    with pytest.raises(ValueError, match=re.escape("a bound needs low <= high, got 2.0..1.0")):
        FloatBound("w", 2.0, 1.0)
    assert math.isclose(read_number("7", TEMPERATURE, OutOfRange.CLAMP).value or 0, 2.0)
