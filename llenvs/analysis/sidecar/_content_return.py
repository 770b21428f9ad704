"""``ContentReturn``: whether a resampled step's content came back in one rollout.

One finding per rollout from before a step (``llenvs.analysis.instruments`` finds them), kept
in the analysis sidecar as ``returns`` lines under ``returns_key``: the rollouts' key with the
similarity and the threshold that decided.

Example:
    >>> ContentReturn(0, 1, 0.42, None).returned
    False

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from llenvs.traces.records import RecordReader

__all__ = ["ContentReturn", "returns_key"]


@dataclass(frozen=True)
class ContentReturn:
    """Whether step ``boundary``'s content came back in rollout ``number`` from before it.

    Example:
        >>> r = ContentReturn(2, 0, 0.91, 3)
        >>> ContentReturn.from_dict(r.to_dict()) == r, r.returned
        (True, True)

    """

    boundary: int
    """The step (the rollout was sampled from before it)."""
    number: int
    """Which rollout of that boundary."""
    similarity: float
    """The highest similarity of the step's text to a run of the rollout's sentences."""
    at: int | None
    """The rollout's sentence (0: its first) where a run at or above the threshold starts
    first, or None: the content did not return."""

    @property
    def returned(self) -> bool:
        """Whether the step's content came back in this rollout."""
        return self.at is not None

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this finding."""
        return {
            "boundary": self.boundary,
            "number": self.number,
            "similarity": round(self.similarity, 6),
            "at": self.at,
        }

    @classmethod
    def from_dict(cls, data: object, where: str = "return") -> ContentReturn:
        """The finding of a JSON object; a ``TraceFormatError`` naming the field otherwise.

        Example:
            >>> ContentReturn.from_dict({"boundary": 0})  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            llenvs.traces.TraceFormatError: return.number: ...

        """
        reader = RecordReader(data, where)
        found = cls(
            boundary=reader.integer("boundary"),
            number=reader.integer("number"),
            similarity=reader.number("similarity"),
            at=reader.opt_integer("at"),
        )
        reader.done()
        return found


def returns_key(key: Mapping[str, Any], similarity: str, threshold: float) -> dict[str, Any]:
    """The sidecar key of returns found in the rollouts stored under ``key``.

    Example:
        >>> returns_key({"model": "m"}, "lexical", 0.8)
        {'model': 'm', 'similarity': 'lexical', 'return_threshold': 0.8}

    """
    return {**key, "similarity": similarity, "return_threshold": threshold}
