"""``EpisodeStart``: where an episode starts, a prefix stepped first and one decision after it.

A branch starts where its parent was (the parent's first segments as its prefix) and applies
its intervention right after them (a ``ForceAction``, feedback, ``COMPLETE``); a plain run
starts from nothing. The two come as a pair, as ``run_batch``'s ``prefixes`` and ``thens`` do.

Example:
    >>> from llenvs.evaluation.episodes._step_decision import ForceAction
    >>> start = EpisodeStart("Two dogs. ", ForceAction("So 8 legs. "))
    >>> start.prefix, start.then
    ('Two dogs. ', ForceAction(text='So 8 legs. '))
    >>> EpisodeStart()
    EpisodeStart(prefix=None, then=None)

"""

from __future__ import annotations

from dataclasses import dataclass

from llenvs.evaluation.episodes._prefix import Prefix
from llenvs.evaluation.episodes._step_decision import StepDecision

__all__ = ["EpisodeStart"]


@dataclass(frozen=True)
class EpisodeStart:
    """What an episode does before it generates: its prefix, then one step decision."""

    prefix: Prefix = None
    """A text, segments (with feedback turns), or ``(state, action)`` pairs stepped first,
    with ``info["replayed"]``, no callback and no count toward ``max_steps``; None for none."""
    then: StepDecision = None
    """One decision applied right after the prefix (even an empty one); None for none."""
