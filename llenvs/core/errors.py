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

import difflib
from collections.abc import Iterable

__all__ = [
    "BackendError",
    "EnvironmentCheckError",
    "EpisodePhaseError",
    "LlenvsError",
    "OutOfBoundsError",
    "PermanentBackendError",
    "RecordFormatError",
    "SegmenterSpecError",
    "TaskIndexError",
    "TerminalStateError",
    "UnknownName",
]


class LlenvsError(Exception):
    """Base class of every error llenvs raises on purpose."""


class UnknownName(LlenvsError, KeyError):
    """A name (environment, adapter, segmenter, backend, ...) that is not one of the choices.

    Up to ``MAX_LISTED`` choices are all listed; beyond that, the message offers the closest
    few (``difflib``) and the number of choices, followed by ``hint`` (how to list them all).

    Example:
        >>> UnknownName("backend", "nope", ["scripted", "openai"]).choices
        ('openai', 'scripted')
        >>> many = [f"task_{i}" for i in range(20)] + ["leg_counting"]
        >>> str(UnknownName("dataset", "leg_countin", many, hint="--list-envs lists them"))
        "unknown dataset 'leg_countin': did you mean leg_counting? (21 choices; --list-envs lists them)"

    """  # noqa: E501

    MAX_LISTED = 12
    """The most choices a message lists in full."""

    def __init__(
        self, kind: str, name: str, choices: Iterable[str], *, hint: str | None = None
    ) -> None:
        self.kind = kind
        self.name = name
        self.choices = tuple(sorted(choices))
        self.hint = hint
        """How to see every choice, said when the message does not list them all."""
        super().__init__(kind, name)

    def __str__(self) -> str:
        start = f"unknown {self.kind} {self.name!r}: "
        if not self.choices:
            return start + "choose one of: (none registered)"
        if len(self.choices) <= self.MAX_LISTED:
            return start + "choose one of: " + ", ".join(self.choices)
        close = difflib.get_close_matches(str(self.name), self.choices, n=3, cutoff=0.6)
        hint = self.hint or "the error's .choices lists them all"
        more = f"{len(self.choices)} choices; {hint}"
        if not close:
            return start + f"no close match ({more})"
        listed = close[0] if len(close) == 1 else f"{', '.join(close[:-1])} or {close[-1]}"
        return start + f"did you mean {listed}? ({more})"


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


class OutOfBoundsError(LlenvsError, ValueError):
    """A number a user gave that is outside its bound; the message names the bound and why.

    Example:
        >>> str(OutOfBoundsError("max_tokens", 0, "must be 1..131072"))
        'max_tokens must be 1..131072, got 0'
        >>> str(OutOfBoundsError("tasks 0-99", "0-99", "the dataset has 10 tasks (0-9)"))
        'tasks 0-99: the dataset has 10 tasks (0-9)'

    """

    def __init__(self, name: str, value: object, bound: str) -> None:
        self.name = name
        """What was given: an option's or a box's name (with the text typed, for task specs)."""
        self.value = value
        """The value given."""
        self.bound = bound
        """The bound it breaks, in words (``must be 1..16``, ``the dataset has 100 tasks``)."""
        super().__init__(name, value, bound)

    def __str__(self) -> str:
        if self.bound.startswith("must "):
            return f"{self.name} {self.bound}, got {self.value!r}"
        return f"{self.name}: {self.bound}"


class RecordFormatError(LlenvsError, ValueError):
    """A JSON value that is not the record it should be; the message names the field's path.

    Example:
        >>> str(RecordFormatError("rollout.boundary: expected an integer, got 'x'"))
        "rollout.boundary: expected an integer, got 'x'"

    """


class TerminalStateError(LlenvsError, ValueError):
    """A step was asked of an episode that has already ended.

    Example:
        >>> raise TerminalStateError("segment 4 is terminal")
        Traceback (most recent call last):
        ...
        llenvs.core.errors.TerminalStateError: segment 4 is terminal

    """


class EpisodePhaseError(LlenvsError, RuntimeError):
    """An episode was moved between phases its transition table does not allow: a bug.

    Example:
        >>> raise EpisodePhaseError("stopped -> generating")
        Traceback (most recent call last):
        ...
        llenvs.core.errors.EpisodePhaseError: stopped -> generating

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


class PermanentBackendError(BackendError):
    """A backend error that trying again cannot fix: bad input, or a script with nothing left.

    Retry policies never retry it (``RetryPolicy.never_retry``).

    Example:
        >>> isinstance(PermanentBackendError("no response left"), BackendError)
        True

    """
