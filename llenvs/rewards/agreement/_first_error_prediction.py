"""The first erroneous step of a trace: by its labels, or as a PRM's scores predict it.

ProcessBench's convention: a trace's first error is the index of its first step labelled -1,
or -1 when every labelled step is right (1) or neutral (0); a PRM predicts the first step it
scores below ``THRESHOLD`` (-1 when there is none).

A trace's labels are a plain mapping, segment index -> label (-1 wrong, 0 neutral, 1 right),
holding only the steps that are labelled: ``TraceLabels``. A labeller's labels of a file are a
mapping, trace id -> ``TraceLabels``: ``Labelling``.

Example:
    >>> first_error({0: 1, 1: 1, 2: -1}), first_error({0: 1, 1: 0})
    (2, -1)
    >>> first_below([0.9, None, 0.2, 0.1])
    2

"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from llenvs.traces.labels import LABEL_VALUES
from llenvs.traces.labels import first_error as labelled_first_error

__all__ = ["LABELS", "THRESHOLD", "Labelling", "TraceLabels", "first_below", "first_error"]

THRESHOLD = 0.5
"""A step scored below this is predicted erroneous (ProcessBench's convention for PRMs)."""

LABELS = LABEL_VALUES
"""The step labels: -1 wrong, 0 neutral, 1 right (PRM800K's ratings; the label store's own)."""

TraceLabels = Mapping[int, int]
"""One trace's labels: segment index -> label, for the labelled steps only."""

Labelling = Mapping[str, TraceLabels]
"""One labeller's labels: trace id -> that trace's labels."""


def first_error(labels: TraceLabels) -> int:
    """The first segment labelled -1, or -1 when no labelled step is wrong.

    ``llenvs.traces.labels``'s rule (one definition), read for the traces a comparison
    holds, which are labelled: a trace with no labels counts as having no error here.

    Example:
        >>> first_error({3: -1, 1: 1, 5: -1}), first_error({}), first_error({0: 0})
        (3, -1, -1)

    """
    found = labelled_first_error(labels)
    return -1 if found is None else found


def first_below(scores: Sequence[float | None], threshold: float = THRESHOLD) -> int:
    """The index of the first score below ``threshold``, or -1 (unrated steps, None, skipped).

    Example:
        >>> first_below([0.5, 0.7]), first_below([None, 0.49], threshold=0.5)
        (-1, 1)

    """
    return next((i for i, s in enumerate(scores) if s is not None and s < threshold), -1)
