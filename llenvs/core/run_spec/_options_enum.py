"""An enumeration whose every member takes its own options: a model's provider, a PRM's kind.

Example:
    >>> class Kind(OptionsEnum):
    ...     PLAIN = "plain"
    ...     SERVED = ("served", ("base_url", "mode"))
    >>> Kind("served").options, Kind.PLAIN.options, Kind.all_options()
    (('base_url', 'mode'), (), ('base_url', 'mode'))
    >>> Kind.SERVED.refuse_unknown({"port": 1}, "the served model")
    Traceback (most recent call last):
    ...
    ValueError: port is not an option of the served model: choose from base_url, mode

"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import Any

__all__ = ["OptionsEnum"]


class OptionsEnum(Enum):
    """A member is its value (a name) and the options a spec of it takes, besides its model.

    A member is written ``NAME = "value"`` (no options) or ``NAME = ("value", ("option", …))``.
    """

    _value_: str
    options: tuple[str, ...]
    """The options a spec of this member takes, in the order they are listed."""

    def __new__(cls, value: str, options: tuple[str, ...] = ()) -> Any:
        """A member named ``value`` that takes ``options``."""
        member = object.__new__(cls)
        member._value_ = value
        member.options = options
        return member

    @classmethod
    def all_options(cls) -> tuple[str, ...]:
        """Every option of any member, once each, in the order first listed."""
        return tuple(dict.fromkeys(option for member in cls for option in member.options))

    def refuse_unknown(self, options: Iterable[str], what: str) -> None:
        """Raise ValueError naming the first of ``options`` this member does not take.

        The error lists the options it does take; ``what`` names the member in words.
        """
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise ValueError(
                f"{unknown[0]} is not an option of {what}: choose from "
                f"{', '.join(self.options) or 'none'}"
            )
