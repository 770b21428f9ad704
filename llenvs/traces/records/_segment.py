"""One segment of a trace: its span, text, tokens, scores and flags.

Example:
    >>> SegmentRecord(0, 0, 5, "Hi. ")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llenvs.traces.TraceFormatError: segment 0: span [0, 5) has length 5 but its text ...

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from llenvs.traces.records._record_reader import RecordReader, check_json_safe, check_scores
from llenvs.traces.records._segment_flag import SegmentFlag
from llenvs.traces.records._trace_format_error import TraceFormatError

__all__ = ["SegmentRecord"]

ORIGINS = frozenset({SegmentFlag.GENERATED, SegmentFlag.FORCED, SegmentFlag.REPLAYED})
"""The flags that say where a segment came from; a segment has exactly one."""


@dataclass(frozen=True)
class SegmentRecord:
    """One segment: a character span of the response and everything recorded about it.

    Example:
        >>> s = SegmentRecord(0, 0, 4, "Hi. ", rewards={"prm": 0.9}, prm_scores={"prm": 0.9})
        >>> s.to_dict()["flags"], SegmentRecord.from_dict(s.to_dict()) == s
        (['replayed'], True)

    """

    index: int
    """Position of the segment in the response (0-based)."""
    start: int
    """Start of its span: a character offset into the response."""
    end: int
    """End of its span (exclusive); ``response[start:end] == text``."""
    text: str
    """The segment's text, exactly as stepped (whitespace included)."""
    token_ids: tuple[int, ...] | None = None
    """Token ids the backend generated for it (overshoot included); None when not generated."""
    logprobs: tuple[float, ...] | None = None
    """Log-probability of each of ``token_ids``, where the backend gave them; else None."""
    rewards: Mapping[str, float] = field(default_factory=dict)
    """Every reward of its step, by reward-function name."""
    prm_scores: Mapping[str, float] = field(default_factory=dict)
    """The PROCESS rewards of its step (process reward model scores), by name."""
    flags: frozenset[SegmentFlag] = frozenset({SegmentFlag.REPLAYED})
    """How it came to be: one of generated / forced / replayed, plus one_shot, feedback_after."""
    terminal: bool = False
    """True when its step ended the episode."""
    annotations: Mapping[str, Any] = field(default_factory=dict)
    """What the segment's source said about it, JSON values by name (an imported study's
    ``function_tags``, ``depends_on`` and ``summary``); written only when there are some (new in
    version 5)."""

    def __post_init__(self) -> None:
        where = f"segment {self.index}"
        for name in ("index", "start", "end"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise TraceFormatError(f"{where}: {name} must be an int >= 0, got {value!r}")
        if self.end - self.start != len(self.text):
            raise TraceFormatError(
                f"{where}: span [{self.start}, {self.end}) has length {self.end - self.start} "
                f"but its text has length {len(self.text)}"
            )
        if self.logprobs is not None and (
            self.token_ids is None or len(self.logprobs) != len(self.token_ids)
        ):
            raise TraceFormatError(f"{where}: logprobs need one value per token id")
        check_scores(self.rewards, f"{where}.rewards")
        check_scores(self.prm_scores, f"{where}.prm_scores")
        check_json_safe(dict(self.annotations), f"{where}.annotations")
        if any(not isinstance(flag, SegmentFlag) for flag in self.flags):
            raise TraceFormatError(f"{where}: flags must be SegmentFlag values, got {self.flags!r}")
        origins = sorted(flag.value for flag in self.flags & ORIGINS)
        if len(origins) != 1:
            raise TraceFormatError(
                f"{where}: needs exactly one of generated / forced / replayed, got {origins}"
            )

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this record (flags sorted by name).

        Example:
            >>> SegmentRecord(1, 4, 4, "").to_dict()["start"]
            4
            >>> SegmentRecord(0, 0, 0, "", annotations={"tags": ["plan"]}).to_dict()["annotations"]
            {'tags': ['plan']}

        """
        annotations = {"annotations": dict(self.annotations)} if self.annotations else {}
        return {
            "index": self.index,
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "token_ids": None if self.token_ids is None else list(self.token_ids),
            "logprobs": None if self.logprobs is None else list(self.logprobs),
            "rewards": dict(self.rewards),
            "prm_scores": dict(self.prm_scores),
            "flags": sorted(flag.value for flag in self.flags),
            "terminal": self.terminal,
            **annotations,
        }

    @classmethod
    def from_dict(cls, data: object, where: str = "segment") -> SegmentRecord:
        """The record of a JSON object; a ``TraceFormatError`` naming the field otherwise.

        Example:
            >>> SegmentRecord.from_dict({"index": 0})
            Traceback (most recent call last):
            ...
            llenvs.traces.TraceFormatError: segment.start: missing

        """
        reader = RecordReader(data, where)
        record = cls(
            index=reader.integer("index"),
            start=reader.integer("start"),
            end=reader.integer("end"),
            text=reader.text("text"),
            token_ids=reader.opt_ints("token_ids"),
            logprobs=reader.opt_floats("logprobs"),
            rewards=reader.scores("rewards"),
            prm_scores=reader.scores("prm_scores"),
            flags=_flags(reader),
            terminal=reader.boolean("terminal"),
            annotations=reader.obj("annotations") if "annotations" in reader.data else {},
        )
        reader.done()
        return record


def _flags(reader: RecordReader) -> frozenset[SegmentFlag]:
    """The ``flags`` field as SegmentFlag values; an unknown name lists the known ones."""
    flags: set[SegmentFlag] = set()
    for value in reader.array("flags"):
        try:
            flags.add(SegmentFlag(value))
        except ValueError:
            choices = ", ".join(sorted(flag.value for flag in SegmentFlag))
            raise TraceFormatError(
                f"{reader.path('flags')}: unknown flag {value!r}: choose from {choices}"
            ) from None
    return frozenset(flags)
