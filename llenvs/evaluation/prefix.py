r"""Prefixes: content stepped through the environment before generation starts.

Three forms: a text (every piece of ``segmenter.pieces(text)`` is stepped), a sequence of
segment strings (stepped as given), and ``(state, action)`` pairs (each action stepped from its
given state, so a non-deterministic trajectory replays exactly). Replayed steps carry
``info["replayed"]``.

Example:
    >>> from llenvs.core.registry import environment_registry
    >>> from llenvs.core import SegmentedEnvironment, SentenceSegmenter
    >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
    >>> env = SegmentedEnvironment(base, SentenceSegmenter())
    >>> state, _ = env.reset(options={"task_index": 0})
    >>> steps = replay_prefix(env, state, "Step 1: count animals.\nStep 2: 2 dogs.")
    >>> [t.action.text for t in steps], steps[-1].info["replayed"]
    (['Step 1: count animals.\n', 'Step 2: 2 dogs.'], True)

"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from llenvs.core.action import Action
from llenvs.core.segmented_environment import SegmentedEnvironment
from llenvs.core.state import State
from llenvs.core.trajectory import Transition

__all__ = ["Prefix", "replay_prefix"]

Prefix = str | Sequence[str] | Sequence[tuple[State[Any], Action]] | None
"""A text, segment strings, or ``(state, action)`` pairs; None (or empty) for no prefix."""


def replay_prefix(env: SegmentedEnvironment, state: State[Any], prefix: Prefix) -> list[Transition]:
    """Step ``prefix`` from ``state``; the transitions carry ``info["replayed"] = True``.

    A prefix may end the episode (its last step is then terminal) but may not go on after it.

    Example:
        >>> from llenvs.core.registry import environment_registry
        >>> from llenvs.core import SegmentedEnvironment
        >>> base = environment_registry.get(name="leg_counting", adapter="reasoning_gym", size=5)
        >>> env = SegmentedEnvironment(base, "sentence")
        >>> state, _ = env.reset(options={"task_index": 0})
        >>> [t.action.text for t in replay_prefix(env, state, ["One. Two. ", "Three."])]
        ['One. Two. ', 'Three.']

    """
    if prefix is None:
        return []
    if isinstance(prefix, str):
        pairs: list[tuple[State[Any] | None, Action]] = [
            (None, Action(p)) for p in env.segmenter.pieces(prefix)
        ]
    else:
        pairs = [_pair(item, number) for number, item in enumerate(prefix)]
    transitions: list[Transition] = []
    for number, (given, action) in enumerate(pairs):
        if transitions and transitions[-1].result.done:
            raise ValueError(
                f"the prefix ended the episode at its step {number - 1} but has "
                f"{len(pairs) - number} more step(s)"
            )
        before = state if given is None else given
        result = env.step(before, action)
        result = replace(result, info={**result.info, "replayed": True})
        transitions.append(Transition(before, action, result))
        state = result.next_state
    return transitions


def _pair(item: object, number: int) -> tuple[State[Any] | None, Action]:
    """One prefix item as ``(given state or None, action)``."""
    if isinstance(item, str):
        if not item:
            raise ValueError(f"prefix segment {number} is empty (it would end the episode)")
        return None, Action(item)
    if (
        isinstance(item, tuple)
        and len(item) == 2
        and isinstance(item[0], State)
        and isinstance(item[1], Action)
    ):
        return item[0], item[1]
    raise TypeError(
        "a prefix is a text, a sequence of segment strings, or a sequence of (state, action) "
        f"pairs; item {number} is {item!r}"
    )
