"""The keys of Browse's label mode, and the step labels each one writes.

``1`` wrong (-1), ``2`` neutral (0), ``3`` correct (+1), ``0`` clear, ``f`` "the first error is
here" (this step -1, every earlier step +1, the later ones left as they are: ProcessBench's
labelling, ``first_error_labels``). A key labels the selected step with the labeller's note on
it; the page then selects the next segment.

A label that would change nothing is not written again (``LabelKey.labels``): pressing ``3`` on a
step already labelled +1 with the same note adds no line to its history, and ``f`` leaves the
earlier steps already labelled +1 (and their notes) alone.

Example:
    >>> [(l.segment, l.label) for l in LabelKey.FIRST_ERROR.labels("t", 2, 5, "ada")]
    [(0, 1), (1, 1), (2, -1)]
    >>> LabelKey("3").labels("t", 4, 5, "ada", note="4 legs each")
    (StepLabel(trace_id='t', segment=4, label=1, labeller='ada', note='4 legs each', time='', previous=None),)

"""  # noqa: E501

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum

from llenvs.traces.labels import StepLabel, first_error_labels

__all__ = ["LabelKey"]


class LabelKey(Enum):
    """A key of label mode; its value is the key itself (``LabelKey("f")``).

    Example:
        >>> [key.value for key in LabelKey], LabelKey.CLEAR.words
        (['1', '2', '3', '0', 'f'], 'clear')

    """

    WRONG = "1"
    NEUTRAL = "2"
    CORRECT = "3"
    CLEAR = "0"
    FIRST_ERROR = "f"

    @property
    def words(self) -> str:
        """What the key does, as its button says it.

        Example:
            >>> LabelKey.WRONG.words, LabelKey.FIRST_ERROR.words
            ('−1 wrong', 'first error here')

        """
        return _WORDS[self]

    @property
    def label(self) -> int | None:
        """The label the key gives the selected step (None: cleared).

        Example:
            >>> LabelKey.NEUTRAL.label, LabelKey.CLEAR.label, LabelKey.FIRST_ERROR.label
            (0, None, -1)

        """
        return _LABELS[self]

    def labels(
        self,
        trace_id: str,
        segment: int,
        count: int,
        labeller: str,
        note: str = "",
        current: Mapping[int, StepLabel] | None = None,
    ) -> tuple[StepLabel, ...]:
        """The labels pressing this key on ``segment`` writes, in a trace of ``count`` segments.

        ``note`` goes with the selected step's label. ``current``: the labeller's latest labels
        of the trace (segment -> label, as ``Labels.latest`` gives them); a label that would not
        change a step is left out: on the selected step the same label and note, on an earlier
        step of ``f`` the same label (its note stays).

        Example:
            >>> held = {0: StepLabel("t", 0, 1, "ada", note="ok"), 2: StepLabel("t", 2, 0, "ada")}
            >>> [(l.segment, l.label) for l in LabelKey.FIRST_ERROR.labels("t", 2, 3, "ada",
            ...                                                          current=held)]
            [(1, 1), (2, -1)]
            >>> LabelKey.NEUTRAL.labels("t", 2, 3, "ada", current=held)
            ()
            >>> LabelKey.CLEAR.labels("t", 1, 3, "ada", current=held)
            ()
            >>> LabelKey.WRONG.labels("t", 3, 3, "ada")
            Traceback (most recent call last):
            ...
            ValueError: segment 3 is not in a trace of 3 segments

        """
        if not 0 <= segment < count:
            raise ValueError(f"segment {segment} is not in a trace of {count} segments")
        held = current or {}
        if self is LabelKey.FIRST_ERROR:
            written = first_error_labels(trace_id, segment, count, labeller, note=note)
        else:
            written = (StepLabel(trace_id, segment, self.label, labeller, note=note),)
        return tuple(
            label for label in written if _changes(label, held.get(label.segment), segment)
        )


_WORDS = {
    LabelKey.WRONG: "−1 wrong",
    LabelKey.NEUTRAL: "0 neutral",
    LabelKey.CORRECT: "+1 correct",
    LabelKey.CLEAR: "clear",
    LabelKey.FIRST_ERROR: "first error here",
}

_LABELS: dict[LabelKey, int | None] = {
    LabelKey.WRONG: -1,
    LabelKey.NEUTRAL: 0,
    LabelKey.CORRECT: 1,
    LabelKey.CLEAR: None,
    LabelKey.FIRST_ERROR: -1,
}


def _changes(label: StepLabel, held: StepLabel | None, selected: int) -> bool:
    """Whether writing ``label`` changes its step, whose latest label is ``held`` (or none)."""
    if held is None:
        return label.label is not None
    if label.segment == selected:
        return (held.label, held.note) != (label.label, label.note)
    return held.label != label.label
