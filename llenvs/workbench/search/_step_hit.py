"""A step that a search found: where it is, its text with the match marked, its numbers.

Example:
    >>> text = "So each cow has 4 legs."
    >>> hit = StepHit("runs.jsonl", 3, 7, text, snippet(text, (16, 22)),
    ...               StepFacts("leg_counting", "m"), match=(16, 22))
    >>> hit.snippet
    'So each cow has «4 legs».'
    >>> hit.record()["trace"], hit.record()["prm"]
    (3, None)

"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from llenvs.workbench.search._step_facts import StepFacts

__all__ = ["MARKS", "SNIPPET", "StepHit", "snippet"]

SNIPPET = 60
"""Characters of context a snippet keeps on each side of the match."""

MARKS = ("«", "»")
"""What a snippet puts around the match."""


@dataclass(frozen=True)
class StepHit:
    """One step found: file, trace (its line, as ``--trace`` counts), segment, text and numbers."""

    file: str
    """The trace file."""
    trace: int
    """The trace's line in the file (from 1)."""
    step: int
    """The segment's index in the trace."""
    text: str
    """The segment's whole text."""
    snippet: str
    """The text around the match on one line, the match between ``MARKS``."""
    facts: StepFacts
    """The step's numbers and names."""
    score: float | None = None
    """A meaning search's cosine similarity to the query (None for text and regex)."""
    match: tuple[int, int] | None = None
    """Where the match is in ``text`` (None for a meaning search)."""

    def record(self) -> dict[str, Any]:
        """The hit as one JSON object: ``file``, ``trace``, ``step``, ``text``, then its numbers."""
        shown: dict[str, Any] = {
            "file": self.file,
            "trace": self.trace,
            "step": self.step,
            "text": self.text,
            "snippet": self.snippet,
        }
        shown.update(asdict(self.facts))
        if self.score is not None:
            shown["score"] = round(self.score, 6)
        return shown


def snippet(text: str, match: tuple[int, int] | None, width: int = SNIPPET) -> str:
    r"""``text`` around ``match`` (its start when None), on one line, the match marked.

    Example:
        >>> snippet("a" * 100 + "NEEDLE" + "b" * 100, (100, 106), width=5)
        '…aaaaa«NEEDLE»bbbbb…'
        >>> snippet("Line one.\nLine two.", None, width=30)
        'Line one.↵Line two.'

    """
    start, end = match if match is not None else (0, 0)
    left = max(start - width, 0)
    right = min(end + (width if match is not None else 2 * width), len(text))
    opening, closing = MARKS
    middle = f"{opening}{text[start:end]}{closing}" if match is not None else ""
    shown = text[left:start] + middle + text[end:right]
    shown = shown.replace("\r", "").replace("\n", "↵")
    return ("…" if left > 0 else "") + shown + ("…" if right < len(text) else "")
