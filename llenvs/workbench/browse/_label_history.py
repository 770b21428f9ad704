"""A step's label history in words: who changed its label, from what to what, when, and why.

Each line of a labels file on a step (``Labels.changes``: every labeller's, in file order) is one
change: its labeller's label before it (``previous``) and after it, with its time and note.

Example:
    >>> from llenvs.traces import StepLabel
    >>> describe_change(StepLabel("t", 3, -1, "ada", note="7 × 8 is not 54",
    ...                           time="2026-01-02T10:20:30.123+00:00", previous=1))
    '2026-01-02 10:20:30 · ada: +1 → −1 · note: 7 × 8 is not 54'

"""

from __future__ import annotations

from collections.abc import Sequence

from llenvs.traces.labels import StepLabel
from llenvs.workbench._whitespace import one_line

__all__ = ["describe_change", "describe_history", "label_words"]

NOTE_LIMIT = 200
"""The most characters of a note a history line shows."""


def label_words(label: int | None) -> str:
    """A label as the history writes it: ``+1``, ``0``, ``−1``; ``none`` for no label.

    Example:
        >>> [label_words(value) for value in (1, 0, -1, None)]
        ['+1', '0', '−1', 'none']

    """
    return {1: "+1", 0: "0", -1: "−1", None: "none"}[label]


def describe_change(label: StepLabel) -> str:
    """One line of a labels file on a step, in words (its time in UTC, to the second).

    Example:
        >>> describe_change(StepLabel("t", 0, None, "bo", time="2026-01-02T10:20:30+00:00",
        ...                           previous=0))
        '2026-01-02 10:20:30 · bo: 0 → none (cleared)'

    """
    when = label.time[:19].replace("T", " ") if label.time else "unknown time"
    change = f"{label_words(label.previous)} → {label_words(label.label)}"
    if label.cleared:
        change += " (cleared)"
    note = f" · note: {one_line(label.note, NOTE_LIMIT)}" if label.note else ""
    return f"{when} · {label.labeller}: {change}{note}"


def describe_history(changes: Sequence[StepLabel]) -> str:
    """The history of one step, newest first, one change a line ("" when it has none).

    Example:
        >>> describe_history([StepLabel("t", 0, 1, "ada", time="2026-01-02T10:00:00+00:00"),
        ...                   StepLabel("t", 0, -1, "ada", time="2026-01-02T11:00:00+00:00",
        ...                             previous=1)]).splitlines()
        ['2026-01-02 11:00:00 · ada: +1 → −1', '2026-01-02 10:00:00 · ada: none → +1']

    """
    return "\n".join(describe_change(label) for label in reversed(changes))
