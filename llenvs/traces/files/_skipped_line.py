"""A line of a trace file that was skipped while reading, and why.

Example:
    >>> str(SkippedLine("runs.jsonl", 3, "not JSON"))
    'runs.jsonl, line 3: not JSON'

"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SkippedLine"]


@dataclass(frozen=True)
class SkippedLine:
    """One line a reader skipped (malformed, or the torn last line of an interrupted write).

    Example:
        >>> SkippedLine("a.jsonl", 9, "torn last line", torn=True).torn
        True

    """

    path: str
    """The file."""
    line: int
    """The line number (1-based)."""
    reason: str
    """What was wrong with it."""
    torn: bool = False
    """True for a last line without its newline (a write that was interrupted)."""
    unit: str = "line"
    """What ``line`` counts: ``line`` in a JSON Lines file, ``sample`` in an Inspect log."""

    def __str__(self) -> str:
        return f"{self.path}, {self.unit} {self.line}: {self.reason}"
