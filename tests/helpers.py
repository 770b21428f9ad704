"""Small test doubles shared by several test packages, and the trace the doctests share."""

from __future__ import annotations

from typing import Any

from llenvs.core import Action, RewardType, SegmentedEnvironment, Signal, State
from llenvs.core.registry import environment_registry
from llenvs.evaluation import replay_trace
from llenvs.traces import SegmentRecord, TaskRecord, Trace


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


def leg_counting_trace(response: str, model: str = "scripted") -> Trace:
    """``response`` to the guide's first task (leg_counting, size 100, seed 42) as ``model``'s.

    Replayed under the sentence segmenter (``replay_trace``): the parent the library's examples
    branch, rerun and analyse (``DOCTEST_NAMES`` in the root conftest gives it to every doctest).
    """
    base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=100, seed=42)
    return replay_trace(SegmentedEnvironment(base, "sentence"), 0, response, model=model)


def scored_trace(environment: str, *steps: tuple[str, float | None], success: bool = True) -> Trace:
    """A trace of ``steps`` (text, PRM score or None), its last step rewarded for correctness.

    Each PRM score is the step's ``prm`` reward too; the search tests filter on them.
    """
    segments, start = [], 0
    for index, (text, prm) in enumerate(steps):
        scores = {} if prm is None else {"prm": prm}
        rewards = {**scores, "correctness": 1.0} if index == len(steps) - 1 else scores
        segments.append(
            SegmentRecord(index, start, start + len(text), text, rewards=rewards, prm_scores=scores)
        )
        start += len(text)
    task = TaskRecord(environment, "a", {}, 0, "q")
    response = "".join(text for text, _ in steps)
    return Trace(task=task, response=response, segments=tuple(segments), success=success)
