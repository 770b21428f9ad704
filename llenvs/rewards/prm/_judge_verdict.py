"""The judge's verdict in one reply: P(correct) from the first token's logprob, or from the text.

A reply that opens with a verdict word (``Yes``, ``**No**``, ``Answer: Correct``) is read from
its first token's logprob where the backend gave logprobs and the word opens the reply: p after
Yes, 1 - p after No (a backend gives the chosen token's logprob only, so the two answers are taken
as the only ones); else from the word (1.0 or 0.0). A reply that opens with none counts when the
rest names one verdict only (``The step is not correct.``); otherwise the step is unrated (None).

Example:
    >>> from llenvs.core._backend import FinishReason
    >>> read_verdict(Generation("Perhaps.", FinishReason.STOP)).notes["why"]
    'no verdict'

"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from llenvs.core import Generation

__all__ = ["Verdict", "read_verdict"]

_MARKUP = re.compile(
    r"^[\s*_`\"'#>:.-]*(?:(?:answer|verdict|judgement|judgment)\s*[:=-]?\s*)?", re.I
)
"""What a reply may open with before its verdict (``**Yes**``, ``Answer: No``)."""
_FIRST = re.compile(r"(yes|no|correct|incorrect|right|wrong|true|false|valid|invalid)\b", re.I)
"""A verdict word opening the (cleaned) reply."""
_ANYWHERE = re.compile(r"\b(not\s+(?:correct|valid)|incorrect|correct|wrong|invalid|valid)\b", re.I)
"""Verdict words counted in a reply that opens with none (``yes``/``no``/``right`` are too
common in prose to count there)."""
_POSITIVE = frozenset({"yes", "correct", "right", "true", "valid"})


@dataclass(frozen=True)
class Verdict:
    """The judge's reading of one reply: its P(correct), or None when it does not rate the step.

    Example:
        >>> Verdict(None, {"verdict": "unrated"}).rated
        False

    """

    score: float | None
    """P(the step is correct) in [0, 1]; None: unrated (no verdict, an error, a blank step)."""
    notes: dict[str, Any] = field(default_factory=dict)
    """Why: the verdict, the reply, where the score came from (logprobs or text), any error."""

    @property
    def rated(self) -> bool:
        """Whether the judge gave the step a score."""
        return self.score is not None


def read_verdict(generation: Generation) -> Verdict:
    """The judge's verdict in one reply: from its first token's logprob where it can.

    Example:
        >>> from llenvs.core._backend import FinishReason
        >>> read_verdict(Generation("Yes", FinishReason.STOP, (7,), (math.log(0.8),))).score
        0.8
        >>> read_verdict(Generation("No.", FinishReason.STOP, (3, 4), (math.log(0.9), 0.0))).score
        0.09999999999999998
        >>> read_verdict(Generation("The step is correct.", FinishReason.STOP)).notes["source"]
        'text'
        >>> read_verdict(Generation("Maybe.", FinishReason.STOP)).score is None
        True

    """
    reply = generation.text
    cleaned = _MARKUP.sub("", reply, count=1)
    first = _FIRST.match(cleaned)
    if first is not None:
        positive = _positive(first.group(1))
        opens = reply.lstrip(" ").lower().startswith(first.group(1).lower())
        if opens and generation.logprobs:
            p = min(1.0, math.exp(generation.logprobs[0]))
            return _verdict(positive, p if positive else 1.0 - p, "logprobs", reply)
        return _verdict(positive, 1.0 if positive else 0.0, "text", reply)
    found = {_positive(m.group(1)) for m in _ANYWHERE.finditer(reply)}
    if len(found) == 1:
        positive = found.pop()
        return _verdict(positive, 1.0 if positive else 0.0, "text", reply)
    why = "two verdicts" if found else "no verdict"
    return Verdict(None, {"verdict": "unrated", "why": why, "reply": reply})


def _positive(word: str) -> bool:
    """Whether a verdict word (or ``not correct``) says the step is correct."""
    return word.lower() in _POSITIVE


def _verdict(
    positive: bool, score: float, source: Literal["logprobs", "text"], reply: str
) -> Verdict:
    verdict = "correct" if positive else "incorrect"
    return Verdict(score, {"verdict": verdict, "source": source, "reply": reply})
