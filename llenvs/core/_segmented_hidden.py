"""The hidden state of a segmented episode: the base task plus segmentation progress.

Example:
    >>> h = SegmentedHidden(base_hidden=None, accumulated_text="One. ", segment_index=1,
    ...                     segments=("One. ",), total_segments=None)
    >>> "".join(h.segments) == h.accumulated_text
    True

"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic

from llenvs.core._state import HiddenT, State

__all__ = ["SegmentedHidden", "segmented_hidden"]


@dataclass(frozen=True)
class SegmentedHidden(Generic[HiddenT]):
    """Segmentation progress on top of the base environment's hidden state.

    ``"".join(segments) == accumulated_text`` always (invariant 1).

    Example:
        >>> SegmentedHidden(None, "", 0, (), None).segment_index
        0

    """

    base_hidden: HiddenT
    """The base environment's hidden state at reset (the task)."""
    accumulated_text: str
    """All assistant text so far, exactly as generated."""
    segment_index: int
    """Number of segments consumed so far (as in ``info["segment_index"]``)."""
    segments: tuple[str, ...]
    """Every segment consumed so far, lossless (they join to ``accumulated_text``)."""
    total_segments: int | None
    """Number of segments of the whole text; known only in replay mode."""
    turn_start: int = 0
    """Where the open assistant turn starts in ``accumulated_text`` (after injected feedback)."""

    def __post_init__(self) -> None:
        if "".join(self.segments) != self.accumulated_text:
            raise ValueError("segments must join to accumulated_text exactly")
        if not 0 <= self.turn_start <= len(self.accumulated_text):
            raise ValueError(
                f"turn_start {self.turn_start} is outside the text "
                f"(0..{len(self.accumulated_text)})"
            )
        if self.segment_index != len(self.segments):
            raise ValueError(
                f"segment_index {self.segment_index} != number of segments {len(self.segments)}"
            )


def segmented_hidden(state: State[Any], needed_by: str) -> SegmentedHidden[Any]:
    """The ``SegmentedHidden`` of ``state``; a ``TypeError`` naming ``needed_by`` otherwise.

    Example:
        >>> from llenvs.core._state import Observation, StateMetadata
        >>> plain = State(Observation("q"), hidden=None, metadata=StateMetadata(0))
        >>> try:
        ...     segmented_hidden(plain, "my reward")
        ... except TypeError as error:
        ...     print(str(error).split(" (")[0])
        my reward needs a segmented state

    """
    if not isinstance(state.hidden, SegmentedHidden):
        raise TypeError(
            f"{needed_by} needs a segmented state (from a SegmentedEnvironment's reset, step or "
            f"replay), whose hidden is a SegmentedHidden; got {type(state.hidden).__name__}"
        )
    return state.hidden
