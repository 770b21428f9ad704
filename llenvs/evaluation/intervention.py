"""What a step callback may return: nothing, feedback text, ``COMPLETE`` or ``ForceAction``.

A callback receives each live step's ``StepResult`` and steers what happens next: ``None``
continues segment by segment in the same assistant turn; a string is feedback, sent as a user
turn (a new assistant turn starts); ``COMPLETE`` finishes the rest in one call;
``ForceAction(text)`` makes ``text`` the next segment instead of generating it.

Example:
    >>> def probe(step_result):
    ...     return COMPLETE if step_result.info.get("segment_index", 0) >= 5 else None
    >>> COMPLETE, ForceAction("Therefore, x = 42.").text
    (COMPLETE, 'Therefore, x = 42.')

"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, final

from llenvs.core.step_result import StepResult

__all__ = ["COMPLETE", "Complete", "ForceAction", "Intervention", "StepCallback"]


@final
class Complete:
    """The type of ``COMPLETE``: finish the rest of the response in one call (a singleton).

    Example:
        >>> Complete() is COMPLETE
        True

    """

    _instance: Complete | None = None

    def __new__(cls) -> Complete:
        """Return the one instance."""
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "COMPLETE"

    def __reduce__(self) -> str:
        return "COMPLETE"


COMPLETE: Final = Complete()
"""Return it from a step callback to generate the rest in one call, with no more callbacks."""


@dataclass(frozen=True)
class ForceAction:
    """Use ``text`` as the next segment instead of generating it.

    The text is one segment, however many sentences it holds; the generated text not yet
    stepped is dropped, and generation resumes after the forced text.

    Example:
        >>> ForceAction("Therefore, x = 42.").text
        'Therefore, x = 42.'
        >>> ForceAction("")
        Traceback (most recent call last):
        ...
        ValueError: ForceAction needs a non-empty text (an empty action would end the episode)

    """

    text: str
    """The segment to take."""

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"ForceAction text must be a string, got {self.text!r}")
        if not self.text:
            raise ValueError(
                "ForceAction needs a non-empty text (an empty action would end the episode)"
            )


Intervention = str | Complete | ForceAction | None
"""What a callback returns, or ``then=`` applies: feedback text, ``COMPLETE``, ``ForceAction``."""

StepCallback = Callable[[StepResult[Any]], Intervention]
"""Called with each live step's result; its return steers the next step."""
