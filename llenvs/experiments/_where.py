"""Where an experiment intervenes: one rule, a ``Where``, picking segments of each parent.

The rules: ``SegmentAt``, ``RelativePositions``, ``EveryBoundary``, ``PRMBelow``,
``TopImportance``, ``MatchingRegex``.

Each rule picks, for one parent, the *intervened segments* (indices ``0..n-1``): a force
replaces that segment, feedback comes right after it, complete and resample generate again
from it (so ``i / n`` of the reasoning is kept). A rule that picks nothing in any parent says
why (``nothing_reason``).

Each rule is a record of its own: ``rule`` names it, its other fields are the rule's
(``where_from_record`` reads the one ``rule`` names; ``WHERE_RECORD`` is how a recipe holds it).

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
from dataclasses import dataclass, field
from typing import Any, Literal

from llenvs.core import RECORD, Coded, Count, Number, Positive, Text, read_record, record_dict
from llenvs.traces.records import SegmentRecord, Trace

__all__ = [
    "WHERE_RECORD",
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
class SegmentAt:
    """Segment ``index`` of every parent that has it.

    Example:
        >>> SegmentAt(-1)
        Traceback (most recent call last):
        ...
        ValueError: index: expected an integer >= 0, got -1

    """

    __pydantic_config__ = RECORD

    rule: Literal["segment"] = field(default="segment", kw_only=True, repr=False)
    """The rule's name in a recipe (``where.rule``)."""
    index: Count
    """The intervened segment (0-based)."""

    def __post_init__(self) -> None:
        if self.index < 0:
            raise ValueError(f"index: expected an integer >= 0, got {self.index}")

    def segments(self, trace: Trace, importances: Importances | None) -> list[int]:
        """``[index]`` when the trace has that segment, else none."""
        return [self.index] if self.index < len(trace.segments) else []

    def nothing_reason(self) -> str:
        """Why no parent gave a segment."""
        return f"no parent has a segment {self.index}"


@dataclass(frozen=True)
class RelativePositions:
    """The segments at these fractions of each parent's segments (``floor(f * n)``).

    Example:
        >>> RelativePositions((1.5,))
        Traceback (most recent call last):
        ...
        ValueError: fractions: a relative position is in [0, 1), got 1.5

    """

    __pydantic_config__ = RECORD

    rule: Literal["relative"] = field(default="relative", kw_only=True, repr=False)
    """The rule's name in a recipe (``where.rule``)."""
    fractions: tuple[Number, ...]
    """Fractions in ``[0, 1)``: 0 is the first segment."""

    def __post_init__(self) -> None:
        if not self.fractions:
            raise ValueError("fractions: give at least one relative position")
        for fraction in self.fractions:
            if not 0 <= fraction < 1:
                raise ValueError(f"fractions: a relative position is in [0, 1), got {fraction}")

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
class EveryBoundary:
    """Every segment of every parent."""

    __pydantic_config__ = RECORD

    rule: Literal["every"] = field(default="every", kw_only=True, repr=False)
    """The rule's name in a recipe (``where.rule``)."""

    def segments(self, trace: Trace, importances: Importances | None) -> list[int]:
        """All of them."""
        return list(range(len(trace.segments)))

    def nothing_reason(self) -> str:
        """Why no parent gave a segment."""
        return "every parent is empty (no segments)"


@dataclass(frozen=True)
class PRMBelow:
    """The first segment whose PRM score is below ``threshold``."""

    __pydantic_config__ = RECORD

    rule: Literal["prm_below"] = field(default="prm_below", kw_only=True, repr=False)
    """The rule's name in a recipe (``where.rule``)."""
    threshold: Number
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
class TopImportance:
    """The ``k`` segments of largest stored |importance| (the analysis sidecar's)."""

    __pydantic_config__ = RECORD

    rule: Literal["top_importance"] = field(default="top_importance", kw_only=True, repr=False)
    """The rule's name in a recipe (``where.rule``)."""
    k: Positive
    """How many segments per parent."""

    def __post_init__(self) -> None:
        if self.k < 1:
            raise ValueError(f"k: top_importance takes k >= 1, got {self.k}")

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
class MatchingRegex:
    """Every segment in which ``pattern`` finds a match (``re.search``).

    Example:
        >>> MatchingRegex("(")
        Traceback (most recent call last):
        ...
        ValueError: pattern: bad regex '(': missing ), unterminated subpattern at position 0

    """

    __pydantic_config__ = RECORD

    rule: Literal["regex"] = field(default="regex", kw_only=True, repr=False)
    """The rule's name in a recipe (``where.rule``)."""
    pattern: Text
    """A Python regular expression."""

    def __post_init__(self) -> None:
        try:
            re.compile(self.pattern)
        except re.error as error:
            raise ValueError(f"pattern: bad regex {self.pattern!r}: {error}") from None

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


def where_from_record(record: object, where: str = "where") -> Where:
    """The rule of a recipe's ``where`` object: its ``rule`` picks the record its fields fill.

    A ``ValueError`` names what is wrong, where (``where``), with the valid choices.

    Example:
        >>> where_from_record({"rule": "relative", "fractions": [0.5]})
        RelativePositions(fractions=(0.5,))
        >>> where_from_record({"rule": "middle"})
        Traceback (most recent call last):
        ...
        ValueError: where.rule: unknown rule 'middle': choose one of segment, relative, every, prm_below, top_importance, regex
        >>> where_from_record({"rule": "segment", "index": "2"}, "recipe.where")
        Traceback (most recent call last):
        ...
        llenvs.core.errors.RecordFormatError: recipe.where.index: expected an integer, got '2'

    """  # noqa: E501
    if not isinstance(record, Mapping):
        raise ValueError(f"{where}: expected an object, got {record!r}")
    rule = record.get("rule")
    rules: dict[Any, Any] = {kind.rule: kind for kind in WHERE_RULES}
    if rule not in rules:
        raise ValueError(f"{where}.rule: unknown rule {rule!r}: choose one of {', '.join(rules)}")
    made: Where = read_record(rules[rule], record, where)
    return made


WHERE_RECORD = Coded(where_from_record, record_dict, "Where")
"""How a record holds a rule (a recipe's ``where``): ``rule`` chooses the record."""
