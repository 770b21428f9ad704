"""Where an experiment intervenes: one rule, a ``Where``, picking segments of each parent.

The rules: ``SegmentAt``, ``RelativePositions``, ``EveryBoundary``, ``PRMBelow``,
``TopImportance``, ``MatchingRegex``.

Each rule picks, for one parent, the *intervened segments* (indices ``0..n-1``): a force
replaces that segment, feedback comes right after it, complete and resample generate again
from it (so ``i / n`` of the reasoning is kept). A rule that picks nothing in any parent says
why (``nothing_reason``).

Example:
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
    >>> texts = ["Two deer. ", "Each has 4 legs. ", "So 8. ", "<answer>8</answer>"]
    >>> segments, start = [], 0
    >>> for i, text in enumerate(texts):
    ...     segments.append(SegmentRecord(i, start, start + len(text), text))
    ...     start += len(text)
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="".join(texts),
    ...           segments=tuple(segments))
    >>> RelativePositions((0.25, 0.5, 0.75)).segments(t, None)
    [1, 2, 3]
    >>> MatchingRegex("[0-9]+ legs").segments(t, None)
    [1]
    >>> where_from_record({"rule": "every"}).segments(t, None)
    [0, 1, 2, 3]

"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from llenvs.traces.records import SegmentRecord, Trace

__all__ = [
    "WHERE_RULES",
    "EveryBoundary",
    "Importances",
    "MatchingRegex",
    "PRMBelow",
    "RelativePositions",
    "SegmentAt",
    "TopImportance",
    "Where",
    "segment_prm_score",
    "where_from_record",
]

Importances = Mapping[int, float]
"""A parent's stored step importances: segment index to importance."""


def segment_prm_score(segment: SegmentRecord) -> float | None:
    """The PRM score a segment records (its first ``prm_scores`` value, else a ``prm`` reward).

    Example:
        >>> segment_prm_score(SegmentRecord(0, 0, 1, "x", prm_scores={"qwen": 0.2}))
        0.2
        >>> segment_prm_score(SegmentRecord(0, 0, 1, "x")) is None
        True

    """
    for score in segment.prm_scores.values():
        return float(score)
    reward = segment.rewards.get("prm")
    return None if reward is None else float(reward)


@dataclass(frozen=True)
class _Rule:
    """What every rule shares: its name, and the record a recipe keeps of it."""

    rule: ClassVar[str]
    """The rule's name in a recipe (``where.rule``)."""

    def to_record(self) -> dict[str, Any]:
        """The JSON object a recipe records: ``rule``, then each field (a tuple as a list).

        Example:
            >>> RelativePositions((0.25, 0.5)).to_record()
            {'rule': 'relative', 'fractions': [0.25, 0.5]}

        """
        record: dict[str, Any] = {"rule": self.rule}
        for field in fields(self):
            value = getattr(self, field.name)
            record[field.name] = list(value) if isinstance(value, tuple) else value
        return record


@dataclass(frozen=True)
class SegmentAt(_Rule):
    """Segment ``index`` of every parent that has it.

    Example:
        >>> SegmentAt(-1)
        Traceback (most recent call last):
        ...
        ValueError: where: segment index must be >= 0, got -1

    """

    rule: ClassVar[str] = "segment"
    index: int
    """The intervened segment (0-based)."""

    def __post_init__(self) -> None:
        if self.index < 0:
            raise ValueError(f"where: segment index must be >= 0, got {self.index}")

    def segments(self, trace: Trace, importances: Importances | None) -> list[int]:
        """``[index]`` when the trace has that segment, else none."""
        return [self.index] if self.index < len(trace.segments) else []

    def nothing_reason(self) -> str:
        """Why no parent gave a segment."""
        return f"no parent has a segment {self.index}"


@dataclass(frozen=True)
class RelativePositions(_Rule):
    """The segments at these fractions of each parent's segments (``floor(f * n)``).

    Example:
        >>> RelativePositions((1.5,))
        Traceback (most recent call last):
        ...
        ValueError: where: relative positions must be in [0, 1), got 1.5

    """

    rule: ClassVar[str] = "relative"
    fractions: tuple[float, ...]
    """Fractions in ``[0, 1)``: 0 is the first segment."""

    def __post_init__(self) -> None:
        if not self.fractions:
            raise ValueError("where: give at least one relative position")
        for fraction in self.fractions:
            if not 0 <= fraction < 1:
                raise ValueError(f"where: relative positions must be in [0, 1), got {fraction}")

    @staticmethod
    def segment_at(fraction: float, count: int) -> int:
        """The segment ``fraction`` falls on among ``count`` (> 0) segments.

        Example:
            >>> [RelativePositions.segment_at(f, 4) for f in (0, 0.25, 0.5, 0.99)]
            [0, 1, 2, 3]

        """
        return min(count - 1, math.floor(fraction * count))

    def segments(self, trace: Trace, importances: Importances | None) -> list[int]:
        """One segment per fraction (fewer when two fall on the same segment)."""
        count = len(trace.segments)
        if count == 0:
            return []
        return sorted({self.segment_at(f, count) for f in self.fractions})

    def nothing_reason(self) -> str:
        """Why no parent gave a segment."""
        return "every parent is empty (no segments to place relative positions on)"


@dataclass(frozen=True)
class EveryBoundary(_Rule):
    """Every segment of every parent."""

    rule: ClassVar[str] = "every"

    def segments(self, trace: Trace, importances: Importances | None) -> list[int]:
        """All of them."""
        return list(range(len(trace.segments)))

    def nothing_reason(self) -> str:
        """Why no parent gave a segment."""
        return "every parent is empty (no segments)"


@dataclass(frozen=True)
class PRMBelow(_Rule):
    """The first segment whose PRM score is below ``threshold``."""

    rule: ClassVar[str] = "prm_below"
    threshold: float
    """The score a segment must be under."""

    def segments(self, trace: Trace, importances: Importances | None) -> list[int]:
        """The first segment scored under the threshold, or none."""
        for segment in trace.segments:
            score = segment_prm_score(segment)
            if score is not None and score < self.threshold:
                return [segment.index]
        return []

    def nothing_reason(self) -> str:
        """Why no parent gave a segment."""
        return f"no PRM score is under {self.threshold:g} in any parent (or none has PRM scores)"


@dataclass(frozen=True)
class TopImportance(_Rule):
    """The ``k`` segments of largest stored |importance| (the analysis sidecar's)."""

    rule: ClassVar[str] = "top_importance"
    k: int
    """How many segments per parent."""

    def __post_init__(self) -> None:
        if self.k < 1:
            raise ValueError(f"where: top_importance k must be >= 1, got {self.k}")

    def segments(self, trace: Trace, importances: Importances | None) -> list[int]:
        """The ``k`` largest by |importance| (ties: the earlier first), in segment order."""
        if not importances:
            return []
        valid = [i for i in importances if 0 <= i < len(trace.segments)]
        ranked = sorted(valid, key=lambda i: (-abs(importances[i]), i))
        return sorted(ranked[: self.k])

    def nothing_reason(self) -> str:
        """Why no parent gave a segment."""
        return "no parent has stored step importances (run `llenvs analyze` on the file first)"


@dataclass(frozen=True)
class MatchingRegex(_Rule):
    """Every segment in which ``pattern`` finds a match (``re.search``).

    Example:
        >>> MatchingRegex("(")
        Traceback (most recent call last):
        ...
        ValueError: where: bad regex '(': missing ), unterminated subpattern at position 0

    """

    rule: ClassVar[str] = "regex"
    pattern: str
    """A Python regular expression."""

    def __post_init__(self) -> None:
        try:
            re.compile(self.pattern)
        except re.error as error:
            raise ValueError(f"where: bad regex {self.pattern!r}: {error}") from None

    def segments(self, trace: Trace, importances: Importances | None) -> list[int]:
        """The segments the pattern matches."""
        compiled = re.compile(self.pattern)
        return [s.index for s in trace.segments if compiled.search(s.text)]

    def nothing_reason(self) -> str:
        """Why no parent gave a segment."""
        return f"the regex {self.pattern!r} never matched a segment of any parent"


Where = SegmentAt | RelativePositions | EveryBoundary | PRMBelow | TopImportance | MatchingRegex
"""Where an experiment intervenes."""

WHERE_RULES = (SegmentAt, RelativePositions, EveryBoundary, PRMBelow, TopImportance, MatchingRegex)
"""Every rule, in the order an unknown rule's error lists them."""


def where_from_record(record: Mapping[str, Any]) -> Where:
    """The rule ``to_record`` wrote; a ``ValueError`` naming what is wrong.

    Example:
        >>> where_from_record({"rule": "relative", "fractions": [0.5]})
        RelativePositions(fractions=(0.5,))
        >>> where_from_record({"rule": "middle"})
        Traceback (most recent call last):
        ...
        ValueError: where.rule: unknown rule 'middle': choose one of segment, relative, every, prm_below, top_importance, regex

    """  # noqa: E501
    given = dict(record)
    rule = given.pop("rule", None)
    rules: dict[str, Any] = {kind.rule: kind for kind in WHERE_RULES}
    if rule not in rules:
        raise ValueError(f"where.rule: unknown rule {rule!r}: choose one of {', '.join(rules)}")
    if rule == RelativePositions.rule and "fractions" in given:
        given["fractions"] = tuple(float(f) for f in given["fractions"])
    try:
        made: Where = rules[rule](**given)
    except TypeError as error:
        raise ValueError(f"where ({rule}): {error}") from None
    return made
