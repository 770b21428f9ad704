"""Which task a trace answers, across runs: its environment and a hash of its question.

A task index says where a task sits in one environment's list, and two files can number the
same question differently (an import numbers rows, a run numbers its environment's tasks), so
runs are paired by identity: the environment and the hash of the prompt the model was asked.

Example:
    >>> a = TaskIdentity.of("products", "Solve 4 * 3.")
    >>> a == TaskIdentity.of("products", "Solve 4 * 3."), a == TaskIdentity.of("products", "3 * 3?")
    (True, False)
    >>> str(a)
    'products #c54974ba7818'

"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

__all__ = ["PROMPT_HASH_DIGITS", "TaskIdentity", "is_prompt_hash", "prompt_hash_of"]

PROMPT_HASH_DIGITS = 16
"""Hex digits of a prompt's SHA-256 kept as its hash (64 bits: no two questions of a run meet)."""

_HASH = re.compile(f"[0-9a-f]{{{PROMPT_HASH_DIGITS}}}")


def prompt_hash_of(prompt: str) -> str:
    """The hash of a prompt: the first 16 hex digits of the SHA-256 of its UTF-8 bytes.

    Example:
        >>> prompt_hash_of("Solve 4 * 3.")
        'c54974ba781838df'

    """
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()[:PROMPT_HASH_DIGITS]


def is_prompt_hash(text: str) -> bool:
    """True when ``text`` has the shape of a prompt hash (16 lowercase hex digits).

    Example:
        >>> is_prompt_hash("c54974ba781838df"), is_prompt_hash("A9A0")
        (True, False)

    """
    return _HASH.fullmatch(text) is not None


@dataclass(frozen=True, order=True)
class TaskIdentity:
    """A task as runs name it: its environment and the hash of its prompt.

    Example:
        >>> TaskIdentity("products", prompt_hash_of("q")).environment
        'products'

    """

    environment: str
    """The environment's name within its adapter (``"products"``)."""
    prompt_hash: str
    """The hash of the prompt (``prompt_hash_of``)."""

    @classmethod
    def of(cls, environment: str, prompt: str) -> TaskIdentity:
        """The identity of the task that asks ``prompt`` in ``environment``.

        Example:
            >>> TaskIdentity.of("e", "q").prompt_hash == prompt_hash_of("q")
            True

        """
        return cls(environment, prompt_hash_of(prompt))

    def __str__(self) -> str:
        return f"{self.environment} #{self.prompt_hash[:12]}"
