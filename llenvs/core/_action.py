"""An action: a piece of model text handed to an environment.

Example:
    >>> Action(text="First, count the animals. ").text
    'First, count the animals. '

"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Action"]


@dataclass(frozen=True)
class Action:
    """Text the model produced (a whole response, or one segment of it).

    Example:
        >>> Action("<answer>8</answer>", final=True).final
        True

    """

    text: str
    """The text of the action, exactly as generated (whitespace included)."""
    final: bool = False
    """True when the producer knows no text follows (generation ended): the step is terminal."""
