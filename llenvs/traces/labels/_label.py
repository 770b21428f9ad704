"""One human label of one step (segment) of a trace: one line of a ``X.labels.jsonl`` file.

A label is -1 (the step is wrong), 0 (neutral: right but no progress) or 1 (correct), as in
PRM800K; ``None`` clears the labeller's earlier label of that step. The store
(``llenvs.traces.labels``) appends labels and reads them back; the latest label of a
labeller on a step wins, and the lines before it stay as its history.

Example:
    >>> label = StepLabel("t1", 2, -1, "ada", note="3 + 4 is not 8")
    >>> from llenvs.core import read_record, record_dict
    >>> read_record(StepLabel, record_dict(label)) == label
    True
    >>> line = {"trace_id": "t", "segment": 1, "label": 5, "labeller": "a"}
    >>> read_record(StepLabel, line, "label")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    llenvs.core.errors.RecordFormatError: label: a step label must be -1, 0, 1 or None ..., got 5
    >>> StepLabel("t1", 0, 2, "ada")
    Traceback (most recent call last):
    ...
    ValueError: a step label must be -1, 0, 1 or None (cleared), got 2

"""

from __future__ import annotations

from dataclasses import dataclass

from llenvs.core import RECORD, Int64, Text

__all__ = ["LABEL_VALUES", "StepLabel"]

LABEL_VALUES = (-1, 0, 1)
"""The labels a step can have: -1 wrong, 0 neutral, 1 correct (``None`` clears a label)."""


@dataclass(frozen=True)
class StepLabel:
    """A labeller's label of one segment of one trace, with when it was given and what it replaced.

    Checked when made: ``label`` and ``previous`` in ``LABEL_VALUES`` or None, ``segment`` >= 0,
    ``trace_id`` and ``labeller`` non-empty.

    Example:
        >>> StepLabel("t1", 0, None, "ada").cleared
        True
        >>> StepLabel("t1", -1, 1, "ada")
        Traceback (most recent call last):
        ...
        ValueError: a step label's segment must be an integer >= 0, got -1

    """

    __pydantic_config__ = RECORD

    trace_id: Text
    """The labelled trace's ``trace_id`` (in the trace file beside the labels file)."""
    segment: Int64
    """The segment's index in the trace (0-based, as ``segments[].index``)."""
    label: Int64 | None
    """-1 wrong, 0 neutral, 1 correct; null: the labeller cleared their label of this step."""
    labeller: Text
    """Who labelled: a person's name, or the dataset a label was imported from (``processbench``,
    ``prm800k``)."""
    note: Text = ""
    """The labeller's note on the step (empty when none)."""
    time: Text = ""
    """When the label was given: an ISO 8601 timestamp in UTC (filled in when appended)."""
    previous: Int64 | None = None
    """This labeller's label of this step before this line (null: none, or cleared); filled in
    when appended, from the labels file."""

    def __post_init__(self) -> None:
        for name in ("label", "previous"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or value not in LABEL_VALUES):
                what = "a step label" if name == "label" else "a step label's previous label"
                raise ValueError(f"{what} must be -1, 0, 1 or None (cleared), got {value!r}")
        if isinstance(self.segment, bool) or not isinstance(self.segment, int) or self.segment < 0:
            raise ValueError(
                f"a step label's segment must be an integer >= 0, got {self.segment!r}"
            )
        for name in ("trace_id", "labeller"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise ValueError(f"a step label's {name} must be a non-empty string, got {value!r}")
        for name in ("note", "time"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"a step label's {name} must be a string")

    @property
    def cleared(self) -> bool:
        """True when this line clears the labeller's label of the step (``label`` is None).

        Example:
            >>> StepLabel("t", 0, 1, "ada").cleared
            False

        """
        return self.label is None
