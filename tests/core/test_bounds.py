"""Issue 24 item 1: every bound names itself, its range and why, and refuses what is outside."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llenvs.core import BATCH_SIZE, DATASET_SIZE, MAX_TOKENS, ROLLOUT_BUDGET, SEED, Bound
from llenvs.core.errors import OutOfBoundsError

BOUNDS = [BATCH_SIZE, DATASET_SIZE, MAX_TOKENS, ROLLOUT_BUDGET, SEED]


@pytest.mark.parametrize("bound", BOUNDS, ids=lambda b: b.name)
@given(value=st.integers(-(2**70), 2**70))
def test_a_bound_keeps_its_range_and_names_it_otherwise(bound, value):
    if bound.low <= value <= bound.high:
        assert bound.check(value) == value
        return
    with pytest.raises(OutOfBoundsError) as caught:
        bound.check(value, "--typed")
    message = str(caught.value)
    assert message.startswith(f"--typed must be {bound.low}..{bound.high} ({bound.why})")
    assert message.endswith(f"got {value}")


@pytest.mark.parametrize("value", [True, 1.5, "3", None])
def test_a_bound_refuses_what_is_not_an_integer(value):
    with pytest.raises(OutOfBoundsError, match=r"must be an integer 1\.\.256"):
        BATCH_SIZE.check(value)  # type: ignore[arg-type]


def test_a_bound_needs_low_below_high():
    with pytest.raises(ValueError, match="low <= high"):
        Bound("x", 2, 1)
