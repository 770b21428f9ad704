"""Every error type llenvs raises, in one place.

All derive from :class:`LlenvsError`, so callers can catch the library's errors in one clause;
each also derives from the built-in error it refines (``KeyError``, ``ValueError``, ...), so code
written against the built-ins keeps working.

Example:
    >>> from llenvs.core.errors import UnknownName
    >>> err = UnknownName("adapter", "nope", ["huggingface", "reasoning_gym"])
    >>> str(err)
    "unknown adapter 'nope': choose one of: huggingface, reasoning_gym"

"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "BackendError",
    "EnvironmentCheckError",
    "LlenvsError",
    "SegmenterSpecError",
    "TaskIndexError",
    "TerminalStateError",
    "UnknownName",
]


class LlenvsError(Exception):
    """Base class of every error llenvs raises on purpose."""


class UnknownName(LlenvsError, KeyError):
    """A name (environment, adapter, segmenter, backend, ...) that is not one of the choices.

    Example:
        >>> UnknownName("backend", "nope", ["scripted", "openai"]).choices
        ('openai', 'scripted')

    """

    def __init__(self, kind: str, name: str, choices: Iterable[str]) -> None:
        self.kind = kind
        self.name = name
        self.choices = tuple(sorted(choices))
        super().__init__(kind, name)

    def __str__(self) -> str:
        listed = ", ".join(self.choices) if self.choices else "(none registered)"
        return f"unknown {self.kind} {self.name!r}: choose one of: {listed}"


class TaskIndexError(LlenvsError, IndexError):
    """A task index outside an environment's range.

    Example:
        >>> str(TaskIndexError(7, 5))
        'task_index 7 is out of range: this environment has 5 tasks (0..4)'

    """

    def __init__(self, index: object, size: int) -> None:
        self.index = index
        self.size = size
        super().__init__(index, size)

    def __str__(self) -> str:
        return (
            f"task_index {self.index!r} is out of range: this environment has "
            f"{self.size} tasks (0..{self.size - 1})"
        )


class TerminalStateError(LlenvsError, ValueError):
    """A step was asked of an episode that has already ended.

    Example:
        >>> raise TerminalStateError("segment 4 is terminal")
        Traceback (most recent call last):
        ...
        llenvs.core.errors.TerminalStateError: segment 4 is terminal

    """


class SegmenterSpecError(LlenvsError, ValueError):
    """A segmenter spec string that cannot be parsed.

    Example:
        >>> str(SegmenterSpecError("line:", "the delimiter is empty"))
        "bad segmenter spec 'line:': the delimiter is empty"

    """

    def __init__(self, spec: str, reason: str) -> None:
        self.spec = spec
        self.reason = reason
        super().__init__(spec, reason)

    def __str__(self) -> str:
        return f"bad segmenter spec {self.spec!r}: {self.reason}"


class EnvironmentCheckError(LlenvsError, AssertionError):
    """An environment that breaks the environment contract (raised by ``check_env``)."""


class BackendError(LlenvsError, RuntimeError):
    """A model backend could not produce what was asked (after any retries).

    Example:
        >>> isinstance(BackendError("server down"), RuntimeError)
        True

    """
