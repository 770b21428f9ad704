"""The answer tags: where a response states its final answer (``<answer>…</answer>``).

Defined in the core so that values below the adapters (``AnswerOpening``) name them; the
adapters' answer extraction (``llenvs.adapters``) re-exports them.

Example:
    >>> ANSWER_OPEN + "8" + ANSWER_CLOSE
    '<answer>8</answer>'

"""

from __future__ import annotations

__all__ = ["ANSWER_CLOSE", "ANSWER_OPEN"]

ANSWER_OPEN = "<answer>"
"""The opening answer tag."""
ANSWER_CLOSE = "</answer>"
"""The closing answer tag; a live response is complete once it appears."""
