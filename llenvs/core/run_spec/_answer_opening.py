r"""``AnswerOpening``: open the answer when a response ends without one.

A small model often reasons well enough and then stops (end of sequence, or the token budget)
without ever writing its answer in the form the environment reads. With an ``AnswerOpening``
the episode does what a researcher would do by hand: it forces an opening that ends with the
answer tag (``\n\nFinal answer: <answer>`` by default) as the next segment, flagged ``forced``
like any intervention, and lets the model complete it with a few more tokens of its own
(``max_tokens``, beyond the trajectory's budget). The trace shows the forced segment; the
answer after it is the model's. s1's "budget forcing" ends thinking the same way.

The default words were measured on the embedded SmolLM2-135M-Instruct, greedy, after its own
responses to 6 ``products`` tasks: after a bare ``<answer>`` it wrote a number in 2 of 6 (one
right), after ``\n\nFinal answer: <answer>`` in 5 of 6 (three right); the rest restated the
sentence it had been writing.

Example:
    >>> opening = AnswerOpening()
    >>> opening.text, opening.max_tokens, opening.marker, opening.stop
    ('\n\nFinal answer: <answer>', 16, '<answer>', ('\n\n',))
    >>> AnswerOpening.from_record(AnswerOpening("Answer:", 8, "Answer:", ("\n",)).to_record())
    AnswerOpening(text='Answer:', max_tokens=8, marker='Answer:', stop=('\n',))
    >>> AnswerOpening("")
    Traceback (most recent call last):
    ...
    ValueError: an answer opening needs text (such as '<answer>')

"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llenvs.core._answer_tags import ANSWER_OPEN
from llenvs.core._record_types import RECORD, Positive, Text
from llenvs.core._records import read_record, record_dict

__all__ = ["DEFAULT_TEXT", "AnswerOpening"]

DEFAULT_TEXT = "\n\nFinal answer: " + ANSWER_OPEN
"""The opening forced by default (measured: see the module docstring)."""


@dataclass(frozen=True)
class AnswerOpening:
    """Force ``text`` when a response ends without ``marker``; then ``max_tokens`` more."""

    __pydantic_config__ = RECORD

    text: Text = DEFAULT_TEXT
    """The opening forced as one segment."""
    max_tokens: Positive = 16
    """Tokens the model may generate after the opening (its answer and the closing tag)."""
    marker: Text = ANSWER_OPEN
    """What shows a response has begun its answer (then nothing is forced)."""
    stop: tuple[Text, ...] = ("\n\n",)
    """More stop sequences for the answer after the opening: a small model that does not close
    the tag goes on to restate it (``12\n\nThe answer is: 12``), and the environment would read
    all of it as the answer."""

    def __post_init__(self) -> None:
        if not self.text:
            raise ValueError("an answer opening needs text (such as '<answer>')")
        if self.max_tokens <= 0:
            raise ValueError(f"an answer opening needs max_tokens > 0, got {self.max_tokens}")

    def to_record(self) -> dict[str, Any]:
        """The JSON object recorded in a trace's run (``run.spec.answer_opening``).

        Example:
            >>> AnswerOpening("A:", 4, "A:", ()).to_record()
            {'text': 'A:', 'max_tokens': 4, 'marker': 'A:', 'stop': []}

        """
        return record_dict(self)

    @classmethod
    def from_record(cls, obj: object, what: str = "run.answer_opening") -> AnswerOpening:
        """The opening of ``to_record``'s object, read by ``read_record``.

        A field left out takes its default.

        Example:
            >>> AnswerOpening.from_record({"text": "<answer>", "max_tokens": 0})
            Traceback (most recent call last):
            ...
            llenvs.core.errors.RecordFormatError: run.answer_opening.max_tokens: expected an integer >= 1, got 0

        """  # noqa: E501
        return read_record(cls, obj, what)
