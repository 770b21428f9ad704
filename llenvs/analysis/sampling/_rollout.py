"""One rollout: a continuation sampled from before segment ``boundary`` and finished in one call.

Example:
    >>> r = Rollout(boundary=2, number=0, seed=rollout_seed(0, 2, 0), success=True, answer="4",
    ...             tokens=12)
    >>> from llenvs.core import read_record, record_dict
    >>> read_record(Rollout, record_dict(r)) == r
    True

"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from llenvs.core import RECORD, Count, Flag, Int64, Text

__all__ = ["Rollout", "rollout_seed"]


def rollout_seed(seed: int, boundary: int, number: int) -> int:
    """The sampling seed of rollout ``number`` from ``boundary`` in a run seeded with ``seed``.

    A hash of the three, so every rollout of a run has its own seed (k rollouts from one prefix
    differ at temperature > 0), the same on every machine and in every rerun.

    Example:
        >>> rollout_seed(0, 1, 0) == rollout_seed(0, 1, 0), rollout_seed(0, 1, 0) == rollout_seed(0, 1, 1)
        (True, False)
        >>> rollout_seed(0, 1, 2) == rollout_seed(0, 2, 1)
        False

    """  # noqa: E501
    digest = hashlib.blake2b(f"{seed}/{boundary}/{number}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % 2**31


@dataclass(frozen=True)
class Rollout:
    """One continuation from before segment ``boundary``, scored by the environment's verifier.

    Example:
        >>> Rollout(0, 0, 7, False, None, 3).answer is None
        True

    """

    __pydantic_config__ = RECORD

    boundary: Count
    """Segments kept before the continuation (0: from the start of the response)."""
    number: Count
    """Which rollout of its boundary (0, 1, ...); with the run seed it gives ``seed``."""
    seed: Int64
    """The sampling seed it was generated with (``rollout_seed``)."""
    success: Flag
    """The environment's verdict on the whole response (every OUTCOME reward >= 1)."""
    answer: Text | None
    """The answer the environment read from the response (None: no answer)."""
    tokens: Count
    """Tokens generated (the kept prefix not counted)."""
    text: Text = ""
    """The text generated after the kept prefix."""
    error: Text | None = None
    """Why the rollout failed (a backend error after retries), or None; failed rollouts are
    kept in the file but not counted."""
