"""Two labellers' agreement on step labels: Cohen's kappa and first-error agreement.

Cohen's kappa is taken on the steps both labelled, over the three classes -1, 0, 1; the
first-error agreement is the share of the traces both labelled (at least one step each) where
ProcessBench's first error (``first_error``: the first step labelled -1, or -1) is the same.
Both come with a percentile-bootstrap interval over those traces.

Example:
    >>> a = label_agreement({"t": {0: 1, 1: -1}}, {"t": {0: 1, 1: -1, 2: 1}})
    >>> a.steps, a.kappa.value, a.first_error.value
    (2, 1.0, 1.0)

"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from llenvs.rewards.agreement._bootstrap_estimate import LEVEL, RESAMPLES, Estimate, bootstrap
from llenvs.rewards.agreement._first_error_prediction import Labelling, first_error
from llenvs.rewards.agreement._step_disagreement import StepDisagreement, label_disagreements

__all__ = ["LabelAgreement", "cohen_kappa", "label_agreement"]

_SharedTrace = tuple[tuple[tuple[int, int], ...], bool]
"""One trace both labelled: its pairs of labels on the steps both labelled, and whether the
first errors are the same."""


@dataclass(frozen=True)
class LabelAgreement:
    """How two labellers' step labels agree."""

    traces: int
    """Traces both labelled (at least one step each)."""
    steps: int
    """Steps both labelled."""
    kappa: Estimate
    """Cohen's kappa on those steps (NaN: no step, or one class only for both)."""
    first_error: Estimate
    """Share of the traces both labelled whose first errors are the same."""
    disagreements: tuple[StepDisagreement, ...]
    """The steps both labelled, differently (``label``: the first's; ``other``: the second's)."""

    def as_record(self) -> dict[str, Any]:
        """The agreement for JSON (NaN as None).

        Example:
            >>> label_agreement({}, {}).as_record()["kappa"]
            {'value': None, 'low': None, 'high': None}

        """
        return {
            "traces": self.traces,
            "steps": self.steps,
            "kappa": self.kappa.as_record(),
            "first_error": self.first_error.as_record(),
            "disagreements": [d.as_record() for d in self.disagreements],
        }


def cohen_kappa(pairs: Sequence[tuple[int, int]]) -> float:
    """Cohen's kappa of two raters' labels, one pair per item: ``(p_o - p_e) / (1 - p_e)``.

    ``p_o`` is the share of items labelled alike; ``p_e`` the share expected by chance, from
    each rater's own label frequencies. NaN when there are no pairs, or when chance agreement
    is certain (both raters use one and the same label throughout: kappa is undefined).

    Example:
        >>> cohen_kappa([(1, 1), (-1, -1), (0, 0)]), cohen_kappa([(1, 1), (1, -1), (-1, 1), (-1, -1)])
        (1.0, 0.0)
        >>> cohen_kappa([(1, 1), (1, 1)]), cohen_kappa([])
        (nan, nan)

    """  # noqa: E501
    if not pairs:
        return math.nan
    count = len(pairs)
    observed = sum(a == b for a, b in pairs) / count
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(first[label] * second[label] for label in first) / (count * count)
    if expected == 1:
        return math.nan
    return (observed - expected) / (1 - expected)


def label_agreement(
    first: Labelling,
    second: Labelling,
    *,
    resamples: int = RESAMPLES,
    seed: int = 0,
    level: float = LEVEL,
) -> LabelAgreement:
    """The agreement of two labellings (trace id -> segment -> label), traces in ``first``'s order.

    Example:
        >>> a = label_agreement({"t": {0: 1, 1: 1}, "u": {0: -1}}, {"t": {0: 1, 1: -1}, "u": {0: 1}})
        >>> a.traces, a.steps, a.first_error.value, len(a.disagreements)
        (2, 3, 0.0, 2)

    """  # noqa: E501
    shared: list[_SharedTrace] = []
    for trace_id, steps in first.items():
        others = second.get(trace_id)
        if not steps or not others:
            continue
        pairs = tuple((steps[s], others[s]) for s in sorted(steps) if s in others)
        shared.append((pairs, first_error(steps) == first_error(others)))
    kappa, same_first = bootstrap(shared, _numbers, resamples=resamples, seed=seed, level=level)
    return LabelAgreement(
        traces=len(shared),
        steps=sum(len(pairs) for pairs, _ in shared),
        kappa=kappa,
        first_error=same_first,
        disagreements=tuple(label_disagreements(first, second)),
    )


def _numbers(shared: Sequence[_SharedTrace]) -> tuple[float, float]:
    """Kappa and first-error agreement of some shared traces (a resample, say)."""
    kappa = cohen_kappa([pair for pairs, _ in shared for pair in pairs])
    same = sum(equal for _, equal in shared) / len(shared) if shared else math.nan
    return kappa, same
