"""Issue 24 item 1: task specs are checked against the dataset's size before any range is made."""

from __future__ import annotations

import tracemalloc

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llenvs.core.errors import LlenvsError, OutOfBoundsError
from llenvs.core.run_spec import parse_tasks, task_count, task_indices


def _peak_bytes(work):
    """The most memory Python allocated while ``work()`` ran (tracemalloc's peak), in bytes."""
    tracing = tracemalloc.is_tracing()
    if not tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        before = tracemalloc.get_traced_memory()[0]
        work()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        if not tracing:
            tracemalloc.stop()


def test_the_issue_range_is_refused_without_building_it_naming_the_size():
    def parse():
        with pytest.raises(OutOfBoundsError) as caught:
            parse_tasks("0-99999999", size=100)
        return caught

    caught = parse()  # a first use, so that what it imports or compiles is not counted below
    # a tuple of 100 million indices takes gigabytes: refused, none is built
    assert _peak_bytes(parse) < 1_000_000
    assert _peak_bytes(lambda: tuple(range(1_000_000))) > 1_000_000  # the measure sees a range
    assert str(caught.value).startswith("tasks 0-99999999: the dataset has 100 tasks (0-99)")
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, LlenvsError)


@pytest.mark.parametrize(
    ("text", "size", "message"),
    [
        ("200", 100, "tasks 200: the dataset has 100 tasks (0-99); 200 is more than that"),
        ("0,100", 100, "the dataset has 100 tasks (0-99); 100 is out of range"),
        ("0", 100, "must be a count of tasks 1..100"),
        ("9-3", 100, "the range 9-3 goes down; write 3-9"),
        ("1, 0-2", 100, "names task 1 twice"),
        ("", 100, "give at least one task"),
        (" , ", 100, "give at least one task"),
        ("two", 100, "is not a count, a list or a range"),
        ("-3", 100, "is not a count, a list or a range"),
        ("1-2-3", 100, "is not a count, a list or a range"),
        ("0-" + "9" * 5000, 100, "is not a count, a list or a range"),
        ("٣", 100, "is not a count, a list or a range"),  # a digit, not an ASCII one
        ("0,1", 1, "the dataset has 1 task (0); 1 is out of range"),
    ],
)
def test_bad_specs_say_why(text, size, message):
    with pytest.raises(OutOfBoundsError) as caught:
        parse_tasks(text, size)
    assert message in str(caught.value)


def test_a_lone_number_is_a_count_in_a_spec_and_an_index_in_a_list():
    assert parse_tasks("3", size=10) == (0, 1, 2)
    assert task_indices("3", size=10) == (3,)
    assert task_count(10, size=10) == range(10)
    with pytest.raises(OutOfBoundsError, match="--num-tasks: the dataset has 10 tasks"):
        task_count(11, size=10, name="--num-tasks")


@given(
    size=st.integers(1, 300),
    parts=st.lists(st.tuples(st.integers(0, 400), st.integers(0, 40)), min_size=1, max_size=6),
)
def test_a_spec_gives_its_indices_or_an_error_naming_the_size(size, parts):
    text = ",".join(f"{low}-{low + width}" if width else str(low) for low, width in parts)
    wanted = [i for low, width in parts for i in range(low, low + width + 1)]
    try:
        tasks = task_indices(text, size)
    except OutOfBoundsError as error:
        message = str(error)
        if max(wanted) >= size:
            assert f"the dataset has {size} task" in message and "out of range" in message
        else:
            assert "twice" in message and len(set(wanted)) < len(wanted)
        return
    assert list(tasks) == wanted
    assert all(0 <= i < size for i in tasks) and len(set(tasks)) == len(tasks)


@given(size=st.integers(1, 10**6), end=st.integers(0, 10**12))
def test_a_range_is_checked_before_it_is_made(size, end):
    if end < size:
        assert len(task_indices(f"{end}-{end}", size)) == 1
        return
    with pytest.raises(OutOfBoundsError, match=f"the dataset has {size} task"):
        parse_tasks(f"0-{end}", size)
