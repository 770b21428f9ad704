"""The step labels of a trace file as read: every line in order, and the lines skipped.

The history is the file's order (appends are serialised by the file's lock), so "latest" means
the last line, whatever the clocks of the machines that wrote them said.

Example:
    >>> labels = Labels((StepLabel("t", 0, 1, "ada"), StepLabel("t", 0, -1, "ada", previous=1),
    ...                  StepLabel("t", 1, 1, "bo")))
    >>> labels.labellers(), labels.latest("ada")["t"][0].label
    (('ada', 'bo'), -1)
    >>> [change.label for change in labels.changes("t", 0)]
    [1, -1]

"""

from __future__ import annotations

from dataclasses import dataclass

from llenvs.traces.skipped_line import SkippedLine
from llenvs.traces.step_label import StepLabel

__all__ = ["Labels"]


@dataclass(frozen=True)
class Labels:
    """What a labels file holds: every label line in file order, and the lines skipped.

    Example:
        >>> Labels(()).labellers(), Labels(()).latest("ada")
        ((), {})

    """

    history: tuple[StepLabel, ...]
    """Every label line, in file order (a later line on the same step of the same labeller
    replaces the earlier one; both stay here)."""
    skipped: tuple[SkippedLine, ...] = ()
    """The lines that could not be read (file, line, why), in order."""

    def labellers(self) -> tuple[str, ...]:
        """Everyone who labelled a step here, in the order they first appear.

        Example:
            >>> Labels((StepLabel("t", 0, 1, "bo"), StepLabel("t", 0, 1, "ada"),
            ...         StepLabel("u", 0, 1, "bo"))).labellers()
            ('bo', 'ada')

        """
        return tuple(dict.fromkeys(label.labeller for label in self.history))

    def latest(self, labeller: str) -> dict[str, dict[int, StepLabel]]:
        """``trace_id -> segment -> label``: each step's latest label by ``labeller``.

        Steps whose latest line clears the label are left out, and so are traces left with no
        labelled step. Traces and segments come in the order they were first labelled.

        Example:
            >>> labels = Labels((StepLabel("t", 0, 1, "ada"), StepLabel("t", 1, 1, "ada"),
            ...                  StepLabel("t", 0, None, "ada", previous=1)))
            >>> {t: sorted(steps) for t, steps in labels.latest("ada").items()}
            {'t': [1]}

        """
        found: dict[str, dict[int, StepLabel]] = {}
        for label in self.history:
            if label.labeller == labeller:
                found.setdefault(label.trace_id, {})[label.segment] = label
        kept = {
            trace_id: {segment: label for segment, label in steps.items() if not label.cleared}
            for trace_id, steps in found.items()
        }
        return {trace_id: steps for trace_id, steps in kept.items() if steps}

    def changes(self, trace_id: str, segment: int) -> tuple[StepLabel, ...]:
        """The history of one step: every label line on it, by any labeller, in file order.

        Example:
            >>> labels = Labels((StepLabel("t", 0, 1, "ada"), StepLabel("t", 1, 1, "ada"),
            ...                  StepLabel("t", 0, -1, "bo")))
            >>> [(c.labeller, c.label) for c in labels.changes("t", 0)]
            [('ada', 1), ('bo', -1)]

        """
        return tuple(
            label
            for label in self.history
            if label.trace_id == trace_id and label.segment == segment
        )
