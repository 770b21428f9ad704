"""One segment of a trace: its span, text, tokens, scores and flags.

Example:
    >>> SegmentRecord(0, 0, 5, "Hi. ")
    Traceback (most recent call last):
    ...
    llenvs.traces.TraceFormatError: span [0, 5) has length 5 but its text has length 4

"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from llenvs.core import RECORD, Count, Flag, Int64, Number, SortedValues, Text, omit_when_empty
from llenvs.traces.records._record_reader import check_json_safe, check_scores
from llenvs.traces.records._segment_flag import SegmentFlag
from llenvs.traces.records._trace_format_error import TraceFormatError

__all__ = ["SegmentRecord"]

ORIGINS = frozenset({SegmentFlag.GENERATED, SegmentFlag.FORCED, SegmentFlag.REPLAYED})
"""The flags that say where a segment came from; a segment has exactly one."""


@dataclass(frozen=True)
class SegmentRecord:
    """One segment: a character span of the response and everything recorded about it.

    Its JSON (``llenvs.core.record_dict``) lists the flags sorted by name and leaves
    ``annotations`` out while there are none.

    Example:
        >>> from llenvs.core import read_record, record_dict
        >>> s = SegmentRecord(0, 0, 4, "Hi. ", rewards={"prm": 0.9}, prm_scores={"prm": 0.9})
        >>> record_dict(s)["flags"], read_record(SegmentRecord, record_dict(s)) == s
        (['replayed'], True)
        >>> "annotations" in record_dict(s)
        False

    """

    __pydantic_config__ = RECORD
    __get_pydantic_core_schema__ = omit_when_empty("annotations")

    index: Count
    """Position of the segment in the response (0-based)."""
    start: Count
    """Start of its span: a character offset into the response."""
    end: Count
    """End of its span (exclusive); ``response[start:end] == text``."""
    text: Text
    """The segment's text, exactly as stepped (whitespace included)."""
    token_ids: tuple[Int64, ...] | None = None
    """Token ids the backend generated for it (overshoot included); None when not generated."""
    logprobs: tuple[Number, ...] | None = None
    """Log-probability of each of ``token_ids``, where the backend gave them; else None."""
    rewards: Mapping[Text, Number] = field(default_factory=dict)
    """Every reward of its step, by reward-function name."""
    prm_scores: Mapping[Text, Number] = field(default_factory=dict)
    """The PROCESS rewards of its step (process reward model scores), by name."""
    flags: Annotated[frozenset[SegmentFlag], SortedValues()] = frozenset({SegmentFlag.REPLAYED})
    """How it came to be: one of generated / forced / replayed, plus one_shot, feedback_after
    (SegmentFlag, below), sorted by name."""
    terminal: Flag = False
    """True when its step ended the episode."""
    annotations: Mapping[Text, Any] = field(default_factory=dict)
    """What the segment's source said about it, JSON values by name (an imported study's
    ``function_tags``, ``depends_on`` and ``summary``); written only when there are some (new in
    version 5)."""

    def __post_init__(self) -> None:
        for name in ("index", "start", "end"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise TraceFormatError(f"{name}: must be an int >= 0, got {value!r}")
        if self.end - self.start != len(self.text):
            raise TraceFormatError(
                f"span [{self.start}, {self.end}) has length {self.end - self.start} but its "
                f"text has length {len(self.text)}"
            )
        if self.logprobs is not None and (
            self.token_ids is None or len(self.logprobs) != len(self.token_ids)
        ):
            raise TraceFormatError("logprobs: need one value per token id")
        check_scores(self.rewards, "rewards")
        check_scores(self.prm_scores, "prm_scores")
        check_json_safe(dict(self.annotations), "annotations")
        if any(not isinstance(flag, SegmentFlag) for flag in self.flags):
            raise TraceFormatError(f"flags: must be SegmentFlag values, got {self.flags!r}")
        origins = sorted(flag.value for flag in self.flags & ORIGINS)
        if len(origins) != 1:
            raise TraceFormatError(
                f"flags: needs exactly one of generated / forced / replayed, got {origins}"
            )
