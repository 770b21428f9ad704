import pytest

from llenvs.core.errors import (
    LlenvsError,
    SegmenterSpecError,
    TaskIndexError,
    TerminalStateError,
    UnknownName,
)


def test_unknown_name_lists_sorted_choices_and_is_a_key_error():
    error = UnknownName("backend", "nope", ["transformers", "openai", "scripted"])
    assert str(error) == "unknown backend 'nope': choose one of: openai, scripted, transformers"
    assert isinstance(error, KeyError) and isinstance(error, LlenvsError)


def test_task_index_error_gives_the_range():
    assert "0..99" in str(TaskIndexError(100, 100))
    assert isinstance(TaskIndexError(1, 1), IndexError)


@pytest.mark.parametrize("error", [TerminalStateError("x"), SegmenterSpecError("s", "r")])
def test_errors_refine_value_error(error):
    assert isinstance(error, ValueError) and isinstance(error, LlenvsError)
