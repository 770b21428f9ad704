"""The human step labels a row of an outside file holds for one trace, and who gave them.

An import never writes them into the trace: ``TraceImport`` turns them into ``StepLabel``
values for the label store (``llenvs.traces.labels``) under the trace id it gives.

Example:
    >>> found = RowLabels("processbench", (1, -1, None))
    >>> [(l.segment, l.label, l.labeller) for l in found.step_labels("t1")]
    [(0, 1, 'processbench'), (1, -1, 'processbench')]
    >>> labeller_of("processbench/gsm8k"), labeller_of("prm800k"), labeller_of(None)
    ('processbench', 'prm800k', 'imported')

"""

from __future__ import annotations

from dataclasses import dataclass

from llenvs.traces.labels import LABEL_VALUES, StepLabel

__all__ = ["UNNAMED_LABELLER", "RowLabels", "labeller_of"]

UNNAMED_LABELLER = "imported"
"""The labeller of labels whose file names neither a labeller nor a dataset."""


def labeller_of(dataset: object) -> str:
    """The labeller of a dataset's labels: its name up to a ``/`` (``processbench/gsm8k``).

    Example:
        >>> labeller_of("prm800k/phase2")
        'prm800k'

    """
    name = dataset.partition("/")[0] if isinstance(dataset, str) else ""
    return name or UNNAMED_LABELLER


@dataclass(frozen=True)
class RowLabels:
    """One trace's labels as a file gives them: one per step (None: the step is unlabelled).

    Example:
        >>> RowLabels("ada", (2,))
        Traceback (most recent call last):
        ...
        ValueError: a step label must be -1, 0, 1 or None, got 2

    """

    labeller: str
    """Who gave the labels (a dataset's name, or the labeller an export recorded)."""
    labels: tuple[int | None, ...]
    """One label per step, in order: -1 wrong, 0 neutral, 1 correct, None unlabelled."""

    def __post_init__(self) -> None:
        for label in self.labels:
            if label is not None and (isinstance(label, bool) or label not in LABEL_VALUES):
                raise ValueError(f"a step label must be -1, 0, 1 or None, got {label!r}")

    def step_labels(self, trace_id: str) -> tuple[StepLabel, ...]:
        """The labels of the labelled steps, as store entries of the trace ``trace_id``.

        Example:
            >>> RowLabels("ada", (None, None)).step_labels("t")
            ()

        """
        return tuple(
            StepLabel(trace_id, segment, label, self.labeller)
            for segment, label in enumerate(self.labels)
            if label is not None
        )
