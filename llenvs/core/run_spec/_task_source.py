"""Where a run's tasks come from (``TaskSource``), and which of them it runs.

``TaskSource`` names an environment of an adapter (``leg_counting`` of ``reasoning_gym``) with
the adapter's options (``size``, ``seed``, more), or a local data file (``.jsonl``, ``.json``,
``.csv``, ``.parquet``) read by the ``huggingface`` adapter; and which of its tasks, as
``parse_tasks`` below spells them (``10``, ``0-9``, ``0,3,5``; None: all of them).

Example:
    >>> source = TaskSource.parse("leg_counting", size=5, seed=3, tasks="0-1")
    >>> environment = source.build()
    >>> len(environment), source.task_indices(len(environment))
    (5, (0, 1))
    >>> TaskSource.from_record(source.to_record()) == source
    True

**Which tasks** (``parse_tasks``), as a user types them, are checked against the dataset's size.

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
    >>> try:
    ...     parse_tasks("0-99999999", size=100)
    ... except OutOfBoundsError as error:
    ...     print(error)
    tasks 0-99999999: the dataset has 100 tasks (0-99); 99999999 is out of range

"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from llenvs.core._record_types import RECORD, Coded, Text, omit_when_empty
from llenvs.core._records import read_record, record_dict
from llenvs.core.errors import OutOfBoundsError

__all__ = [
    "DATA_FILE_ADAPTER",
    "DEFAULT_ADAPTER",
    "OptionValue",
    "TaskSource",
    "parse_tasks",
    "spell_tasks",
    "task_count",
    "task_indices",
]


if TYPE_CHECKING:
    from llenvs.core._environment import Environment


DEFAULT_ADAPTER = "reasoning_gym"


"""The adapter of an environment named without one (the CLI's ``--adapter`` default)."""


DATA_FILE_ADAPTER = "huggingface"


"""The adapter that reads a local data file."""


OptionValue = str | int | float | bool | None | tuple["OptionValue", ...]


"""An adapter option's value: JSON without objects (a list is kept as a tuple)."""


@dataclass(frozen=True)
class TaskSource:
    """An environment (or data file), its adapter and options, and the tasks to run.

    Example:
        >>> TaskSource.data_file("tasks.jsonl").adapter
        'huggingface'
        >>> TaskSource("")
        Traceback (most recent call last):
        ...
        ValueError: a task source needs an environment name or a data file

    """

    __pydantic_config__ = RECORD
    __get_pydantic_core_schema__ = omit_when_empty("tasks")

    environment: Text
    """The environment's name (or the data file's path, for the ``huggingface`` adapter)."""
    adapter: Text = DEFAULT_ADAPTER
    """The adapter that makes it."""
    options: Annotated[
        tuple[tuple[str, OptionValue], ...],
        Coded(_options, _written, "option → JSON value", where=False),
    ] = ()
    """The adapter's options (``size``, ``seed``, ...), sorted by name; a JSON object in a file."""
    tasks: Text | None = None
    """Which tasks, as ``llenvs.core.run_spec`` spells them; None: every task."""

    def __post_init__(self) -> None:
        if not isinstance(self.environment, str) or not self.environment:
            raise ValueError("a task source needs an environment name or a data file")
        if not isinstance(self.adapter, str) or not self.adapter:
            raise ValueError(f"a task source needs an adapter name, got {self.adapter!r}")
        names = [name for name, _ in self.options]
        if names != sorted(set(names)):
            raise ValueError(f"options must be sorted by name, each once, got {names}")
        for name, value in self.options:
            _check_value(name, value)

    @classmethod
    def parse(
        cls,
        environment: str,
        *,
        adapter: str = DEFAULT_ADAPTER,
        tasks: str | None = None,
        **options: Any,
    ) -> TaskSource:
        """A source from what the CLI's ``--env``, ``--adapter``, ``--size``... name.

        Example:
            >>> TaskSource.parse("leg_counting", size=5).options
            (('size', 5),)
            >>> TaskSource.parse("x", config={"a": 1})
            Traceback (most recent call last):
            ...
            ValueError: option 'config': expected text, a number, true/false, null or a list of them, got {'a': 1}

        """  # noqa: E501
        return cls(environment, adapter, _options(options), tasks)

    @classmethod
    def data_file(cls, path: str, *, tasks: str | None = None, **options: Any) -> TaskSource:
        """A source reading the tasks of a local data file (``huggingface`` adapter).

        Example:
            >>> TaskSource.data_file("t.csv", tasks="3").tasks
            '3'

        """
        return cls.parse(path, adapter=DATA_FILE_ADAPTER, tasks=tasks, **options)

    @property
    def kwargs(self) -> dict[str, Any]:
        """The adapter's keyword arguments (tuples given back as lists).

        Example:
            >>> TaskSource.parse("e", sizes=[1, 2]).kwargs
            {'sizes': [1, 2]}

        """
        return _written(self.options)

    def build(self) -> Environment:
        """The environment, made by ``environment_registry``.

        Example:
            >>> len(TaskSource.parse("leg_counting", size=2).build())
            2

        """
        from llenvs.core.registry import environment_registry

        return environment_registry.get(name=self.environment, adapter=self.adapter, **self.kwargs)

    def task_indices(self, size: int) -> tuple[int, ...]:
        """The tasks to run of an environment of ``size`` tasks (every one when None).

        Example:
            >>> TaskSource.parse("e", tasks="2").task_indices(5)
            (0, 1)

        """
        if self.tasks is None:
            return tuple(range(size))
        return parse_tasks(self.tasks, size)

    def to_record(self) -> dict[str, Any]:
        """The JSON object of this source.

        Example:
            >>> TaskSource.parse("leg_counting", size=5).to_record()
            {'environment': 'leg_counting', 'adapter': 'reasoning_gym', 'options': {'size': 5}}

        """
        return record_dict(self)

    @classmethod
    def from_record(cls, obj: object, what: str = "task") -> TaskSource:
        """The source of ``to_record``'s object; a bad field is named.

        Example:
            >>> TaskSource.from_record({"environment": "e", "options": []})
            Traceback (most recent call last):
            ...
            llenvs.core.errors.RecordFormatError: task.options: expected a JSON object, got []

        """
        return read_record(cls, obj, what)


def _options(options: object) -> tuple[tuple[str, OptionValue], ...]:
    """A JSON object of options as a source holds them: sorted by name, lists as tuples."""
    if not isinstance(options, dict):
        raise ValueError(f"expected a JSON object, got {options!r}")
    frozen = []
    for name, value in sorted(options.items()):
        try:
            frozen.append((name, _frozen(value)))
        except ValueError as error:
            raise ValueError(f"option {name!r}: {error}") from None
    return tuple(frozen)


def _written(options: tuple[tuple[str, OptionValue], ...]) -> dict[str, Any]:
    """The JSON object of a source's options (tuples given back as lists)."""
    return {name: _thawed(value) for name, value in options}


def _frozen(value: object) -> OptionValue:
    """A JSON option value with its lists as tuples (so a source is hashable)."""
    if isinstance(value, list | tuple):
        return tuple(_frozen(item) for item in value)
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise ValueError(
        "expected text, a number, true/false, null or a list of them, got " + repr(value)
    )


def _thawed(value: OptionValue) -> Any:
    """An option value as JSON (tuples as lists)."""
    if isinstance(value, tuple):
        return [_thawed(item) for item in value]
    return value


def _check_value(name: str, value: object) -> None:
    """Refuse an option value that is not ``OptionValue``, naming the option."""
    try:
        if _frozen(value) != value or isinstance(value, list):
            raise ValueError(f"expected a tuple, not a list, got {value!r}")
    except ValueError as error:
        raise ValueError(f"option {name!r}: {error}") from None


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
