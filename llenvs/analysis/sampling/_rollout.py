"""One rollout: a continuation sampled from before segment ``boundary`` and finished in one call.

Example:
    >>> r = Rollout(boundary=2, number=0, seed=rollout_seed(0, 2, 0), success=True, answer="4",
    ...             tokens=12)
    >>> Rollout.from_dict(r.to_dict()) == r
    True

"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from llenvs.traces.records import RecordReader, TraceFormatError

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

    boundary: int
    """Segments kept before the continuation (0: from the start of the response)."""
    number: int
    """Which rollout of its boundary (0, 1, ...); with the run seed it gives ``seed``."""
    seed: int
    """The sampling seed it was generated with (``rollout_seed``)."""
    success: bool
    """The environment's verdict on the whole response (every OUTCOME reward >= 1)."""
    answer: str | None
    """The answer the environment read from the response (None: no answer)."""
    tokens: int
    """Tokens generated (the kept prefix not counted)."""
    text: str = ""
    """The text generated after the kept prefix."""
    error: str | None = None
    """Why the rollout failed (a backend error after retries), or None; failed rollouts are
    kept in the file but not counted."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this rollout.

        Example:
            >>> Rollout(0, 1, 7, True, "4", 3).to_dict()["answer"]
            '4'

        """
        return {
            "boundary": self.boundary,
            "number": self.number,
            "seed": self.seed,
            "success": self.success,
            "answer": self.answer,
            "tokens": self.tokens,
            "text": self.text,
            "error": self.error,
        }

    @classmethod
    def from_dict(cls, data: object, where: str = "rollout") -> Rollout:
        """The rollout of a JSON object; a ``TraceFormatError`` naming the field otherwise.

        Example:
            >>> Rollout.from_dict({"boundary": "x"})  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            llenvs.traces.TraceFormatError: rollout.boundary: expected ...

        """
        reader = RecordReader(data, where)
        rollout = cls(
            boundary=reader.integer("boundary"),
            number=reader.integer("number"),
            seed=reader.integer("seed"),
            success=reader.boolean("success"),
            answer=reader.opt_text("answer"),
            tokens=reader.integer("tokens"),
            text=reader.text("text"),
            error=reader.opt_text("error"),
        )
        reader.done()
        if rollout.boundary < 0 or rollout.number < 0 or rollout.tokens < 0:
            raise TraceFormatError(f"{where}: boundary, number and tokens must be >= 0")
        return rollout
