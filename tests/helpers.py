"""Small test doubles shared by several test packages."""

from __future__ import annotations

from typing import Any

from llenvs.core import Action, RewardType, Signal, State


class Hesitation:
    """A PROCESS reward: 0.2 for a segment that asks a question, else 1.0."""

    name = "hesitation"
    reward_type = RewardType.PROCESS

    def compute(self, state: State[Any], action: Action, next_state: State[Any]) -> Signal:
        return Signal(self.name, self.reward_type, 0.2 if "?" in action.text else 1.0)


class LengthPRM:
    """The guide's duck-typed PRM: only ``score(text)``, by length; remembers what it was asked."""

    def __init__(self) -> None:
        self.prefixes: list[str] = []

    def score(self, text: str) -> float:
        self.prefixes.append(text)
        return len(text) / 100
