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

from llenvs.core import RECORD, Count, Number

__all__ = ["ContentReturn", "returns_key"]


@dataclass(frozen=True)
class ContentReturn:
    """Whether step ``boundary``'s content came back in rollout ``number`` from before it.

    Example:
        >>> r = ContentReturn(2, 0, 0.91, 3)
        >>> from llenvs.core import read_record, record_dict
        >>> read_record(ContentReturn, record_dict(r)) == r, r.returned
        (True, True)

    """

    __pydantic_config__ = RECORD

    boundary: Count
    """The step (the rollout was sampled from before it)."""
    number: Count
    """Which rollout of that boundary."""
    similarity: Number
    """The highest similarity of the step's text to a run of the rollout's sentences."""
    at: Count | None
    """The rollout's sentence (0: its first) where a run at or above the threshold starts
    first, or None: the content did not return."""

    @property
    def returned(self) -> bool:
        """Whether the step's content came back in this rollout."""
        return self.at is not None


def returns_key(key: Mapping[str, Any], similarity: str, threshold: float) -> dict[str, Any]:
    """The sidecar key of returns found in the rollouts stored under ``key``.

    Example:
        >>> returns_key({"model": "m"}, "lexical", 0.8)
        {'model': 'm', 'similarity': 'lexical', 'return_threshold': 0.8}

    """
    return {**key, "similarity": similarity, "return_threshold": threshold}
