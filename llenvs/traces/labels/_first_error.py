"""ProcessBench's view of a trace's step labels: the index of its first wrong step.

ProcessBench labels a solution by its earliest wrong step, -1 when every step is right. From
per-step labels (-1 wrong, 0 neutral, 1 correct) that is the first step labelled -1, else -1
(neutral steps are not errors). ``first_error`` reads it leniently from whatever steps are
labelled; ``settled_first_error`` only where the labels settle it (every step before the first
error labelled; with no error, every step labelled), which is what an export may claim.
``first_error_labels`` makes the labels of "the first error is here": that step -1, every
earlier one +1.

Example:
    >>> first_error({0: 1, 1: 1, 2: -1, 3: -1}), first_error({0: 1, 1: 0}), first_error({})
    (2, -1, None)
    >>> settled_first_error({0: 1, 2: -1}, 4), settled_first_error({0: 1, 1: -1}, 4)
    (None, 1)

"""

from __future__ import annotations

from collections.abc import Mapping

from llenvs.traces.labels._label import StepLabel

__all__ = ["first_error", "first_error_labels", "settled_first_error"]

StepLabels = Mapping[int, StepLabel] | Mapping[int, int]
"""One trace's labels by segment: ``StepLabel`` values (as ``Labels.latest`` gives them) or the
bare labels."""


def first_error(labels: StepLabels) -> int | None:
    """The first segment labelled -1; -1 when every labelled step is 0 or 1; None when none is.

    Example:
        >>> from llenvs.traces.labels._label import StepLabel
        >>> first_error({3: StepLabel("t", 3, -1, "a"), 1: StepLabel("t", 1, -1, "a")})
        1
        >>> first_error({0: 1, 5: 1})
        -1

    """
    values = _values(labels)
    if not values:
        return None
    wrong = [segment for segment, label in values.items() if label == -1]
    return min(wrong) if wrong else -1


def settled_first_error(labels: StepLabels, count: int) -> int | None:
    """``first_error`` of a trace of ``count`` segments where its labels settle it, else None.

    A first error at step k is settled when steps 0 to k-1 are all labelled (0 or 1): an
    unlabelled step before it might be the real first error. "No error" (-1) is settled when
    all ``count`` steps are labelled and none is -1. Labels of segments outside ``range(count)``
    are refused.

    Example:
        >>> settled_first_error({0: 1, 1: 1}, 2), settled_first_error({0: 1, 1: 1}, 3)
        (-1, None)
        >>> settled_first_error({0: -1}, 3), settled_first_error({}, 0)
        (0, None)
        >>> settled_first_error({4: 1}, 3)
        Traceback (most recent call last):
        ...
        ValueError: a label of segment 4 in a trace of 3 segments

    """
    values = _values(labels)
    for segment in values:
        if not 0 <= segment < count:
            raise ValueError(f"a label of segment {segment} in a trace of {count} segments")
    found = first_error(values)
    if found is None:
        return None
    end = count if found == -1 else found
    return found if all(values.get(step) is not None for step in range(end)) else None


def first_error_labels(
    trace_id: str, segment: int, count: int, labeller: str, note: str = ""
) -> tuple[StepLabel, ...]:
    """The labels of "the first error is at ``segment``": it -1, every step before it +1.

    The steps after it are not labelled (their labels, if any, are left as they are: they do
    not change where the first error is). ``count`` is the trace's number of segments;
    ``note`` goes with the wrong step's label.

    Example:
        >>> [(l.segment, l.label) for l in first_error_labels("t", 2, 5, "ada")]
        [(0, 1), (1, 1), (2, -1)]
        >>> first_error_labels("t", 5, 5, "ada")
        Traceback (most recent call last):
        ...
        ValueError: segment 5 is not in a trace of 5 segments

    """
    if not 0 <= segment < count:
        raise ValueError(f"segment {segment} is not in a trace of {count} segments")
    earlier = tuple(StepLabel(trace_id, step, 1, labeller) for step in range(segment))
    return (*earlier, StepLabel(trace_id, segment, -1, labeller, note=note))


def _values(labels: StepLabels) -> dict[int, int]:
    """The bare label of each segment (a cleared ``StepLabel``, like a missing one, is none)."""
    values: dict[int, int] = {}
    for segment, label in labels.items():
        value = label.label if isinstance(label, StepLabel) else label
        if value is not None:
            values[segment] = value
    return values
