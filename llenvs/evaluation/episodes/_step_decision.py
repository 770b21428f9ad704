"""``StepDecision``: what a step callback returns (None, text, ``COMPLETE``, ``ForceAction``).

A callback receives each live step's ``StepResult`` and steers what happens next: ``None``
continues segment by segment in the same assistant turn; a string is feedback, sent as a user
turn (a new assistant turn starts); ``COMPLETE`` finishes the rest in one call;
``ForceAction(text)`` makes ``text`` the next segment instead of generating it.

A branch's intervention (``llenvs.core``) is applied as one of these, right after
its prefix (``run_trajectory(..., then=...)``): a ``Force`` becomes a ``ForceAction``, a
``Feedback`` its text, ``Complete()`` is ``COMPLETE`` itself (one value in both: its class is
this module's ``Complete``), and a ``Resample`` is ``None`` (generation simply continues).

Example:
    >>> def probe(step_result):
    ...     return COMPLETE if step_result.info.get("segment_index", 0) >= 5 else None
    >>> COMPLETE, ForceAction("Therefore, x = 42.").text
    (COMPLETE, 'Therefore, x = 42.')

"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from llenvs.core import COMPLETE, Complete, StepResult

__all__ = ["COMPLETE", "Complete", "ForceAction", "StepCallback", "StepDecision"]


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


StepDecision = str | Complete | ForceAction | None
"""What a callback returns, or ``then=`` applies: feedback text, ``COMPLETE``, ``ForceAction``."""

StepCallback = Callable[[StepResult[Any]], StepDecision]
"""Called with each live step's result; its return steers the next step."""
