"""``TaskSource``: where a run's tasks come from: an environment by name, or a data file.

An environment of an adapter (``leg_counting`` of ``reasoning_gym``) with the adapter's options
(``size``, ``seed``, more), or a local data file (``.jsonl``, ``.json``, ``.csv``,
``.parquet``) read by the ``huggingface`` adapter; and which of its tasks, as
``llenvs.core.task_spec`` spells them (``10``, ``0-9``, ``0,3,5``; None: all of them).

Example:
    >>> source = TaskSource.parse("leg_counting", size=5, seed=3, tasks="0-1")
    >>> environment = source.build()
    >>> len(environment), source.task_indices(len(environment))
    (5, (0, 1))
    >>> TaskSource.from_record(source.to_record()) == source
    True

"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from llenvs.core.spec.record_fields import RecordFields
from llenvs.core.task_spec import parse_tasks

if TYPE_CHECKING:
    from llenvs.core.environment import Environment

__all__ = ["DATA_FILE_ADAPTER", "DEFAULT_ADAPTER", "OptionValue", "TaskSource"]

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

    environment: str
    """The environment's name (or the data file's path, for the ``huggingface`` adapter)."""
    adapter: str = DEFAULT_ADAPTER
    """The adapter that makes it."""
    options: tuple[tuple[str, OptionValue], ...] = ()
    """The adapter's options (``size``, ``seed``, ...), sorted by name."""
    tasks: str | None = None
    """Which tasks, as ``llenvs.core.task_spec`` spells them; None: every task."""

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
        frozen = []
        for name, value in sorted(options.items()):
            try:
                frozen.append((name, _frozen(value)))
            except ValueError as error:
                raise ValueError(f"option {name!r}: {error}") from None
        return cls(environment, adapter, tuple(frozen), tasks)

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
        return {name: _thawed(value) for name, value in self.options}

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
        record: dict[str, Any] = {
            "environment": self.environment,
            "adapter": self.adapter,
            "options": self.kwargs,
        }
        if self.tasks is not None:
            record["tasks"] = self.tasks
        return record

    @classmethod
    def from_record(cls, obj: object, what: str = "task") -> TaskSource:
        """The source of ``to_record``'s object; a bad field is named.

        Example:
            >>> TaskSource.from_record({"environment": "e", "options": []})
            Traceback (most recent call last):
            ...
            ValueError: task.options: expected a JSON object, got []

        """
        fields = RecordFields(obj, what, ("environment", "adapter", "options", "tasks"))
        options = fields.raw("options", {})
        if not isinstance(options, dict):
            raise ValueError(f"{what}.options: expected a JSON object, got {options!r}")
        try:
            return cls.parse(
                fields.text("environment"),
                adapter=fields.text("adapter", DEFAULT_ADAPTER),
                tasks=fields.text("tasks", None),
                **options,
            )
        except (TypeError, ValueError) as error:
            raise ValueError(f"{what}: {error}") from None


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
