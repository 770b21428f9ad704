import pytest

from llenvs.rewards import Aggregation, aggregate


def test_each_aggregation():
    scores = [0.9, 0.5, 0.8]
    assert aggregate(scores, Aggregation.MIN) == 0.5
    assert aggregate(scores, Aggregation.LAST) == 0.8
    assert aggregate(scores, Aggregation.PRODUCT) == pytest.approx(0.36)
    assert aggregate(scores, Aggregation.MEAN) == pytest.approx(2.2 / 3)
    assert aggregate(scores) == 0.5  # min by default


def test_an_empty_trace_and_a_string_are_refused():
    with pytest.raises(ValueError, match="no step scores to aggregate"):
        aggregate([], Aggregation.MEAN)
    with pytest.raises(TypeError, match="how must be an Aggregation"):
        aggregate([1.0], "min")


def test_names_round_trip():
    assert [Aggregation(a.value) for a in Aggregation] == list(Aggregation)
