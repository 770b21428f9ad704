"""Which tasks to run, as a user types them, checked against the dataset's size.

A task spec is a count (``10``: tasks 0-9), or a comma-separated list of indices and ranges
(``0,3,5``, ``0-9``, ``0-4, 7``). Every part is checked against the dataset's size before a
single index is made, so ``0-99999999`` on a dataset of 100 tasks is refused at once, whatever
its length; the workbench's Tasks box and the CLI's ``--tasks`` and ``--num-tasks`` read tasks
with these functions, so both say the same.

Example:
    >>> parse_tasks("0-2, 5", size=100)
    (0, 1, 2, 5)
    >>> parse_tasks("3", size=100)
    (0, 1, 2)
    >>> parse_tasks("0-99999999", size=100)
    Traceback (most recent call last):
    ...
    llenvs.core.errors.OutOfBoundsError: tasks 0-99999999: the dataset has 100 tasks (0-99); 99999999 is out of range

"""  # noqa: E501

from __future__ import annotations

from collections.abc import Sequence

from llenvs.core.errors import OutOfBoundsError

__all__ = ["parse_tasks", "spell_tasks", "task_count", "task_indices"]

SPELLINGS = "a count, a list or a range (e.g. 10, or 0-9, or 0,3,5)"
"""What a task spec may be, said when one is not."""


def parse_tasks(text: str, size: int, name: str = "tasks") -> tuple[int, ...]:
    """The tasks ``text`` names: a count (``10``: tasks 0-9), or indices and ranges.

    ``size`` is the dataset's number of tasks; ``name`` is how the user knows the box or
    option. A count larger than ``size`` is refused, as is any index or range end outside
    ``0..size-1``, an empty spec, and a task named twice.

    Example:
        >>> parse_tasks("200", size=100)
        Traceback (most recent call last):
        ...
        llenvs.core.errors.OutOfBoundsError: tasks 200: the dataset has 100 tasks (0-99); 200 is more than that
        >>> parse_tasks("two", size=100)
        Traceback (most recent call last):
        ...
        llenvs.core.errors.OutOfBoundsError: tasks 'two': is not a count, a list or a range (e.g. 10, or 0-9, or 0,3,5)

    """  # noqa: E501
    stripped = text.strip()
    if stripped.isdigit():
        return tuple(task_count(_number(stripped, text, name), size, f"{name} {stripped}"))
    return task_indices(text, size, name)


def task_count(count: int, size: int, name: str = "num_tasks") -> range:
    """Tasks ``0..count-1``, refused when ``count`` is not 1..``size``.

    Example:
        >>> task_count(3, size=10)
        range(0, 3)
        >>> task_count(11, size=10, name="--num-tasks")
        Traceback (most recent call last):
        ...
        llenvs.core.errors.OutOfBoundsError: --num-tasks: the dataset has 10 tasks (0-9); 11 is more than that

    """  # noqa: E501
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise OutOfBoundsError(name, count, f"must be a count of tasks 1..{size}")
    if count > size:
        raise OutOfBoundsError(name, count, f"{_has(size)}; {count} is more than that")
    return range(count)


def task_indices(text: str, size: int, name: str = "tasks") -> tuple[int, ...]:
    """The indices and ranges of ``text`` (``0,3,5``, ``0-9``, ``0-4, 7``), in the order given.

    A lone number here is one index (``5``: task 5), not a count. Each index and each range's
    ends are checked against ``size`` before the range is made.

    Example:
        >>> task_indices("3, 1", size=10), task_indices("8-9", size=10)
        ((3, 1), (8, 9))
        >>> task_indices("1,0-2", size=10)
        Traceback (most recent call last):
        ...
        llenvs.core.errors.OutOfBoundsError: tasks 1,0-2: names task 1 twice

    """
    shown = f"{name} {text.strip() or repr(text)}"
    parts = [part.strip() for part in text.split(",")]
    if not any(parts):
        raise OutOfBoundsError(shown, text, "give at least one task (e.g. 10, or 0-9, or 0,3,5)")
    spans: list[tuple[int, int]] = []
    for part in parts:
        if not part:
            continue
        first, dash, last = part.partition("-")
        low = _number(first.strip(), text, name)
        high = _number(last.strip(), text, name) if dash else low
        if high < low:
            raise OutOfBoundsError(shown, text, f"the range {part} goes down; write {high}-{low}")
        if high >= size:
            raise OutOfBoundsError(shown, text, f"{_has(size)}; {high} is out of range")
        spans.append((low, high))
    tasks: dict[int, None] = {}
    for low, high in spans:
        for index in range(low, high + 1):
            if index in tasks:
                raise OutOfBoundsError(shown, text, f"names task {index} twice")
            tasks[index] = None
    return tuple(tasks)


def spell_tasks(tasks: Sequence[int]) -> str:
    """The task spec that names ``tasks``, in their order: runs as ranges (``parse_tasks``).

    A single task is spelled as a range (``5-5``): a lone number is a count.

    Example:
        >>> spell_tasks([0, 1, 2, 5]), spell_tasks([7])
        ('0-2,5-5', '7-7')
        >>> parse_tasks(spell_tasks([3, 1, 2]), size=10)
        (3, 1, 2)

    """
    if not tasks:
        raise ValueError("spell_tasks needs at least one task")
    runs: list[list[int]] = []
    for index in tasks:
        if runs and index == runs[-1][1] + 1:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    return ",".join(f"{low}-{high}" for low, high in runs)


def _number(part: str, text: str, name: str) -> int:
    """A non-negative index or count, else the error that says what a spec may be."""
    if not part.isdigit() or not part.isascii():
        raise OutOfBoundsError(f"{name} {text.strip()!r}", text, f"is not {SPELLINGS}")
    try:
        return int(part)
    except ValueError:  # more digits than int() reads
        raise OutOfBoundsError(f"{name} {text.strip()!r}", text, f"is not {SPELLINGS}") from None


def _has(size: int) -> str:
    """``the dataset has 100 tasks (0-99)``."""
    if size <= 0:
        return "the dataset has no task"
    if size == 1:
        return "the dataset has 1 task (0)"
    return f"the dataset has {size} tasks (0-{size - 1})"
