"""A trace file's step labels compared: per labeller, between labellers, and with PRMs.

What ``llenvs agreement`` prints and the workbench's Labels page draws, computed once here:
for each labeller, the counts and coverage of their latest labels (``labeller_coverage``); for
each pair of labellers, Cohen's kappa and first-error agreement (``label_agreement``); for each
PRM's scores against each labeller, ProcessBench's measures with bootstrap intervals,
calibration and disagreements (``prm_agreement``).

Example:
    >>> from llenvs.rewards.prm._scores import PRMScores
    >>> from llenvs.traces import SegmentRecord, StepLabel, TaskRecord, Trace
    >>> from llenvs.traces.labels._store import Labels
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="A. B.", trace_id="t",
    ...           segments=(SegmentRecord(0, 0, 3, "A. "), SegmentRecord(1, 3, 5, "B.")))
    >>> labels = Labels((StepLabel("t", 0, 1, "ada"), StepLabel("t", 1, -1, "ada"),
    ...                  StepLabel("t", 0, 1, "bo"), StepLabel("t", 1, 1, "bo")))
    >>> scores = PRMScores("p", True, {"t": [0.9, 0.1]})
    >>> found = compare_labels([t], labels, ["ada", "bo"], [scores], trace_file="t.jsonl",
    ...                        resamples=0)
    >>> found.labellers["ada"].steps_labelled, found.pairs[("ada", "bo")].first_error.value
    (2, 0.0)
    >>> found.prms[("p", "ada")].accuracy.value, found.prms[("p", "bo")].accuracy.value
    (1.0, 0.0)

"""

from __future__ import annotations

import itertools
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from llenvs.rewards.agreement._bootstrap_estimate import LEVEL, RESAMPLES
from llenvs.rewards.agreement._calibration_bin import BINS
from llenvs.rewards.agreement._first_error_prediction import THRESHOLD, Labelling
from llenvs.rewards.agreement._label_agreement import LabelAgreement, label_agreement
from llenvs.rewards.agreement._labeller_coverage import LabellerCoverage, labeller_coverage
from llenvs.rewards.agreement._prm_agreement import PRMAgreement, prm_agreement
from llenvs.rewards.prm import PRMScores
from llenvs.traces.labels import Labels, labels_path
from llenvs.traces.records import Trace

__all__ = ["LabelComparison", "compare_labels", "labelling"]


@dataclass(frozen=True)
class LabelComparison:
    """Labellers and PRMs against the step labels of one file's traces."""

    traces: int
    """Traces in the file."""
    steps: int
    """Their segments."""
    labellers: Mapping[str, LabellerCoverage]
    """Each labeller compared, with what they labelled, in the order given."""
    pairs: Mapping[tuple[str, str], LabelAgreement]
    """Each pair of labellers (in the order given) -> how their labels agree."""
    prms: Mapping[tuple[str, str], PRMAgreement]
    """(PRM scores' name, labeller) -> how the scores agree with that labeller's labels."""
    sources: Mapping[str, str]
    """Each PRM scores' name -> how they were had (``stored``, ``scored now``)."""
    threshold: float = THRESHOLD
    """A step scored below it is predicted wrong."""
    resamples: int = RESAMPLES
    """Bootstrap resamples of every interval (0: no interval)."""
    seed: int = 0
    """The bootstrap's seed."""
    level: float = LEVEL
    """The intervals' coverage."""
    bins: int = BINS
    """Score bins of the calibration tables."""

    def as_record(self) -> dict[str, Any]:
        """The whole comparison for JSON (``llenvs agreement --json`` adds the file).

        Example:
            >>> found = compare_labels([], Labels(()), [], [], trace_file="t.jsonl")
            >>> found.as_record()["labellers"], found.as_record()["resamples"]
            ({}, 1000)

        """
        return {
            "traces": self.traces,
            "steps": self.steps,
            "threshold": self.threshold,
            "resamples": self.resamples,
            "seed": self.seed,
            "level": self.level,
            "labellers": {name: c.as_record() for name, c in self.labellers.items()},
            "pairs": [
                {"first": first, "second": second, **agreement.as_record()}
                for (first, second), agreement in self.pairs.items()
            ],
            "prms": [
                {"prm": prm, "source": self.sources[prm], "labeller": name, **a.as_record()}
                for (prm, name), a in self.prms.items()
            ],
        }


def labelling(labels: Labels, labeller: str, trace_file: str | os.PathLike[str]) -> Labelling:
    """``labeller``'s latest labels as trace id -> segment -> label; an error when none.

    The error names the labellers there are (or says the labels file is empty).

    Example:
        >>> from llenvs.traces import StepLabel
        >>> labelling(Labels((StepLabel("t", 1, -1, "ada"),)), "ada", "t.jsonl")
        {'t': {1: -1}}
        >>> labelling(Labels((StepLabel("t", 1, -1, "ada"),)), "bo", "t.jsonl")
        Traceback (most recent call last):
        ...
        ValueError: no labels by 'bo' for the traces of t.jsonl: the labellers there are ada

    """
    latest = labels.latest(labeller)
    if not latest:
        there = labels.labellers()
        said = (
            f"the labellers there are {', '.join(there)}"
            if there
            else f"{labels_path(trace_file)} holds no labels"
        )
        raise ValueError(f"no labels by {labeller!r} for the traces of {trace_file}: {said}")
    return {
        trace_id: {
            segment: label.label for segment, label in steps.items() if label.label is not None
        }
        for trace_id, steps in latest.items()
    }


def compare_labels(
    traces: Sequence[Trace],
    labels: Labels,
    labellers: Sequence[str],
    scores: Sequence[PRMScores],
    *,
    trace_file: str | os.PathLike[str],
    threshold: float = THRESHOLD,
    resamples: int = RESAMPLES,
    seed: int = 0,
    level: float = LEVEL,
    bins: int = BINS,
) -> LabelComparison:
    """Compare ``labellers`` (each with every other) and every PRM's ``scores`` with each.

    A labeller without a label on ``traces`` is an error naming those there (``labelling``);
    a labeller or scores named twice count once.

    Example:
        >>> compare_labels([], Labels(()), ["ada"], [], trace_file="t.jsonl")
        Traceback (most recent call last):
        ...
        ValueError: no labels by 'ada' for the traces of t.jsonl: t.labels.jsonl holds no labels

    """
    labellings = {name: labelling(labels, name, trace_file) for name in dict.fromkeys(labellers)}
    steps = {t.trace_id: len(t.segments) for t in traces}
    kept = list({s.name: s for s in scores}.values())
    return LabelComparison(
        traces=len(traces),
        steps=sum(steps.values()),
        labellers={name: labeller_coverage(found, steps) for name, found in labellings.items()},
        pairs={
            (first, second): label_agreement(
                labellings[first], labellings[second], resamples=resamples, seed=seed, level=level
            )
            for first, second in itertools.combinations(labellings, 2)
        },
        prms={
            (s.name, name): prm_agreement(
                found,
                s.scores,
                threshold=threshold,
                bins=bins,
                resamples=resamples,
                seed=seed,
                level=level,
            )
            for s in kept
            for name, found in labellings.items()
        },
        sources={s.name: s.source for s in kept},
        threshold=threshold,
        resamples=resamples,
        seed=seed,
        level=level,
        bins=bins,
    )
