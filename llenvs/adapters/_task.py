"""A question-answer task: the hidden part of a single-turn environment's state.

Example:
    >>> Task(index=0, question="2 + 2?", answer="4").answer
    '4'

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Task"]


@dataclass(frozen=True)
class Task:
    """One task of a dataset.

    Example:
        >>> Task(1, "q", None).entry
        {}

    """

    index: int
    """Index of the task in its environment."""
    question: str
    """The question, without the answer-format instruction."""
    answer: str | None
    """The expected answer, when the dataset has one."""
    entry: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """The dataset's own record (reasoning-gym's entry with its metadata; a dataset row)."""
