"""Things in words: counts, a success rate with its 95% interval, a duration, an analysis key.

Example:
    >>> count(1, "segment"), count(3, "segment"), count(2, "branch", "branches")
    ('1 segment', '3 segments', '2 branches')
    >>> success_rate(4, 8)
    '4/8 = 50% [21.5%, 78.5%]'

"""

from __future__ import annotations

from typing import Any

from llenvs.analysis.statistics import wilson_interval

__all__ = ["MISSING", "count", "describe_key", "duration", "success_rate"]

MISSING = "—"
"""What a table cell shows for a value that is not known (Streamlit draws "None" otherwise)."""


def count(number: int, one: str, many: str | None = None) -> str:
    """``number`` and the noun, singular for exactly one; ``many`` when not ``one + "s"``.

    Example:
        >>> count(0, "sample")
        '0 samples'

    """
    return f"{number} {one if number == 1 else many or one + 's'}"


def success_rate(wins: int, judged: int) -> str:
    """``wins`` of ``judged`` as a rate with its 95% Wilson interval; "no verdict" for none.

    Example:
        >>> success_rate(0, 0)
        'no verdict'

    """
    if judged <= 0:
        return "no verdict"
    interval = wilson_interval(wins, judged)
    return f"{wins}/{judged} = {wins / judged:.0%} [{interval.low:.1%}, {interval.high:.1%}]"


def describe_key(key: dict[str, Any]) -> str:
    """A stored key in words.

    Example:
        >>> describe_key({"model": "m", "temperature": 0.7, "top_p": 1.0, "max_tokens": 96,
        ...               "seed": 0})
        'm · temperature 0.7 · top-p 1 · 96 tokens a rollout · seed 0'
        >>> describe_key({"published": "thought-anchors", "model": "r1", "temperature": 0.6,
        ...               "top_p": 0.95})
        'published by thought-anchors · r1 · temperature 0.6 · top-p 0.95'

    """
    if "published" in key:
        return (
            f"published by {key['published']} · {key.get('model', '?')} · temperature "
            f"{key.get('temperature', '?'):g} · top-p {key.get('top_p', '?'):g}"
        )
    return (
        f"{key.get('model', '?')} · temperature {key.get('temperature', '?'):g} · "
        f"top-p {key.get('top_p', '?'):g} · {key.get('max_tokens', '?')} tokens a rollout · "
        f"seed {key.get('seed', '?')}"
    )


def duration(seconds: float | None) -> str:
    """Seconds in words.

    Example:
        >>> duration(None), duration(42.4), duration(130), duration(7200)
        ('unknown', '42 s', '2 min 10 s', '2 h 0 min')

    """
    if seconds is None:
        return "unknown"
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"
