"""A long name cut in the middle, so that names cut to fit a narrow box still tell apart.

A box cuts its text at the end: ``imported-step_traces.jsonl`` and ``imported-step_traces-2.jsonl``
(an upload saved again under a new name), or two positions of one experiment, then look alike.
Their ends are what differ, so the pages cut the middle instead and keep both ends.

Example:
    >>> short_name("imported-real_responses-2.jsonl", 24)
    'imported-re…nses-2.jsonl'
    >>> short_name("a.jsonl", 24)
    'a.jsonl'

"""

from __future__ import annotations

__all__ = ["ELLIPSIS", "SIDEBAR_NAME", "short_name"]

ELLIPSIS = "…"
"""What stands for the characters cut out."""

SIDEBAR_NAME = 30
"""The most characters of a file name a sidebar's select box shows whole (at its default width)."""


def short_name(name: str, most: int) -> str:
    """``name`` if it has ``most`` characters or fewer; else its start and end around ``ELLIPSIS``.

    The end, which tells names apart more often, gets the odd character; ``most`` in all.

    Example:
        >>> short_name("thought_anchors-r1-distill-llama-8b.jsonl", 28)
        'thought_ancho…llama-8b.jsonl'
        >>> short_name("abc", 0)
        Traceback (most recent call last):
        ...
        ValueError: most must be >= 3, got 0

    """
    if most < 3:
        raise ValueError(f"most must be >= 3, got {most}")
    if len(name) <= most:
        return name
    head = (most - 1) // 2
    tail = most - 1 - head
    return f"{name[:head]}{ELLIPSIS}{name[-tail:]}"
