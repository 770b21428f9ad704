"""Does the removed content come back? Resampled steps the model says again further on.

A rollout from before step i replaces step i and what follows with text of the model's own.
The model often says step i's content again, at once or a few sentences later (Thought Branches
calls this resilience): a step whose content returns cannot matter by being *removed*. For every
rollout from before a step, ``find_returns`` splits the rollout's text into sentences and
compares the step's text with every run of as many consecutive sentences as the step has
(``TextSimilarity``: all-MiniLM-L6-v2 where installed, else word overlap, named as such); the
content *returned* when one of them is at least ``threshold`` alike (0.8, the cut Thought
Anchors used to set similar resamples aside).

Per step (``step_returns``): the share of its rollouts where the content returned, and its
importance measured only on the rollouts where it did not, ``v_{i+1} - v_i(not returned)``
with its bootstrap interval (Thought Anchors' counterfactual importance). ``content_returns``
does both for a ``StepAnalysis`` and keeps what it found in the analysis sidecar (``returns``
lines, under the rollouts' key with the similarity and threshold), so a reopened trace reads
them back and only new rollouts are compared.

Example:
    >>> from llenvs.analysis.statistics._boundary_value import boundary_values, exact_value
    >>> from llenvs.analysis.sampling._rollout import Rollout
    >>> from llenvs.analysis.instruments._sentence_similarity import LexicalSimilarity
    >>> from llenvs.traces import SegmentRecord, TaskRecord, Trace
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="Cows have 4 legs. So 8.",
    ...           segments=(SegmentRecord(0, 0, 18, "Cows have 4 legs. "),
    ...                     SegmentRecord(1, 18, 23, "So 8.")))
    >>> rollouts = [Rollout(0, 0, 0, True, "8", 9, "Two cows. Cows have 4 legs. So 8."),
    ...             Rollout(0, 1, 1, False, "6", 9, "Cows have 3 legs each. So 6.")]
    >>> returns = find_returns(t, rollouts, LexicalSimilarity())
    >>> [(r.number, r.at) for r in returns]
    [(0, 1), (1, None)]
    >>> values = boundary_values(rollouts, [0]) + [exact_value(1, True, "8")]
    >>> [step] = step_returns(values, rollouts, returns)
    >>> step.share, step.kept.value, step.importance
    (0.5, 0.0, 1.0)

"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from llenvs.analysis._step_analysis import StepAnalysis
from llenvs.analysis.instruments._sentence_similarity import TextSimilarity, default_similarity
from llenvs.analysis.sampling import Rollout
from llenvs.analysis.sidecar import (
    ContentFound,
    ContentReturn,
    append_returns,
    read_returns,
    returns_key,
)
from llenvs.analysis.statistics import BoundaryValue, Interval, boundary_values, step_importances
from llenvs.core.segmenters import SentenceSegmenter
from llenvs.traces.records import Trace

__all__ = [
    "RETURN_THRESHOLD",
    "ContentReturns",
    "StepReturn",
    "content_returns",
    "find_returns",
    "sentence_runs",
    "step_returns",
    "stored_or_found",
]

RETURN_THRESHOLD = 0.8
"""How alike a run of a rollout's sentences must be to the step for its content to count as
returned (Thought Anchors set resamples at cosine >= 0.8 aside as the same step)."""

_SENTENCES = SentenceSegmenter()


@dataclass(frozen=True)
class StepReturn:
    """How often step ``step``'s content came back, and its importance where it did not.

    Example:
        >>> StepReturn(0, 0, 0, None, None, None, Interval(-1.0, 1.0)).share is None
        True

    """

    step: int
    """The segment's index."""
    rollouts: int
    """Rollouts from before the step that were compared (failed ones are not)."""
    returned: int
    """How many of them said the step's content again."""
    share: float | None
    """``returned / rollouts`` (None with none)."""
    kept: BoundaryValue | None
    """The value before the step over the rollouts where the content did not return."""
    importance: float | None
    """``v_{step+1} - kept.value``: the importance measured only where the content did not
    return (None while either is unknown, or with no value after the step)."""
    interval: Interval
    """Its bootstrap 95% interval."""


def sentence_runs(sentences: Sequence[str], size: int) -> list[str]:
    """Every run of ``size`` consecutive sentences, joined (the whole text when fewer).

    Example:
        >>> sentence_runs(["A.", "B.", "C."], 2), sentence_runs(["A."], 3), sentence_runs([], 1)
        (['A. B.', 'B. C.'], ['A.'], [])

    """
    if len(sentences) <= size:
        return [" ".join(sentences)] if sentences else []
    return [" ".join(sentences[i : i + size]) for i in range(len(sentences) - size + 1)]


def find_returns(
    trace: Trace,
    rollouts: Iterable[Rollout],
    similarity: TextSimilarity,
    threshold: float = RETURN_THRESHOLD,
) -> list[ContentReturn]:
    """Whether each counted rollout says its step's content again, compared by ``similarity``.

    Rollouts that failed, and those from after the last segment (no step was removed), are
    left out. The rollouts of one step are compared in one call.

    Example:
        >>> from llenvs.analysis.instruments._sentence_similarity import LexicalSimilarity
        >>> from llenvs.traces import TaskRecord
        >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
        >>> find_returns(t, [Rollout(0, 0, 0, True, "8", 1, "x")], LexicalSimilarity())
        []

    """
    by_step: dict[int, list[Rollout]] = defaultdict(list)
    for rollout in rollouts:
        if rollout.error is None and rollout.boundary < len(trace.segments):
            by_step[rollout.boundary].append(rollout)
    found = []
    for step, step_rollouts in sorted(by_step.items()):
        text = trace.segments[step].text
        size = max(1, len(_SENTENCES.segment(text)))
        runs = [sentence_runs(_SENTENCES.segment(r.text), size) for r in step_rollouts]
        scores = similarity.similarities(text, [run for each in runs for run in each])
        start = 0
        for rollout, its_runs in zip(step_rollouts, runs, strict=True):
            mine = scores[start : start + len(its_runs)]
            start += len(its_runs)
            at = next((i for i, score in enumerate(mine) if score >= threshold), None)
            best = round(max(mine, default=0.0), 6)  # as stored: read back, it is the same
            found.append(ContentReturn(step, rollout.number, best, at))
    return found


def step_returns(
    values: Sequence[BoundaryValue],
    rollouts: Sequence[Rollout],
    returns: Iterable[ContentReturn],
    *,
    seed: int = 0,
) -> list[StepReturn]:
    """Per step compared: the share returned, and the importance where it did not.

    ``values`` are the analysis's boundary values (all rollouts counted); the value after step
    i is theirs, the value before it is recounted over the rollouts from boundary i whose
    content did not return (the importance is None without a value after the step). A step
    none of whose rollouts was compared is left out.

    Example:
        >>> step_returns([], [], [])
        []

    """
    by_rollout = {(r.boundary, r.number): r for r in returns}
    after = {v.boundary: v for v in values}
    by_step: dict[int, list[Rollout]] = defaultdict(list)  # one pass over the rollouts
    for rollout in rollouts:
        if rollout.error is None and (rollout.boundary, rollout.number) in by_rollout:
            by_step[rollout.boundary].append(rollout)
    steps = []
    for step in sorted({r.boundary for r in by_rollout.values()}):
        compared = by_step.get(step, [])
        if not compared:
            continue
        returned = sum(by_rollout[(step, r.number)].returned for r in compared)
        kept = [r for r in compared if not by_rollout[(step, r.number)].returned]
        [before] = boundary_values(kept, [step])
        importance, interval = None, Interval(-1.0, 1.0)
        if step + 1 in after:
            [difference] = step_importances([before, after[step + 1]], seed=seed)
            importance, interval = difference.importance, difference.interval
        steps.append(
            StepReturn(
                step,
                len(compared),
                returned,
                returned / len(compared),
                before,
                importance,
                interval,
            )
        )
    return steps


@dataclass(frozen=True)
class ContentReturns:
    """What ``content_returns`` found for one analysis.

    Example:
        >>> ContentReturns("lexical", 0.8, (), ()).caption()
        'Removed content returning: nothing compared yet (similarity: word overlap, lexical)'

    """

    similarity: str
    """The similarity used (``all-MiniLM-L6-v2`` or ``lexical``)."""
    threshold: float
    """The similarity at which content counts as returned."""
    returns: tuple[ContentReturn, ...]
    """One finding per rollout compared."""
    steps: tuple[StepReturn, ...]
    """The summary per step (``step_returns``)."""
    compared_now: int = 0
    """How many findings were computed now rather than read back."""

    def by_step(self) -> dict[int, StepReturn]:
        """``steps`` by their index."""
        return {s.step: s for s in self.steps}

    def caption(self) -> str:
        """One line: how much came back, and which similarity said so."""
        how = (
            "word overlap, lexical"
            if self.similarity == "lexical"
            else f"{self.similarity} sentence embeddings"
        )
        if not self.returns:
            return f"Removed content returning: nothing compared yet (similarity: {how})"
        returned = sum(r.returned for r in self.returns)
        return (
            f"Removed content returned in {returned} of {len(self.returns)} rollouts "
            f"(similarity ≥ {self.threshold:g}: {how})"
        )


def content_returns(
    trace: Trace,
    analysis: StepAnalysis,
    *,
    similarity: TextSimilarity | None = None,
    threshold: float = RETURN_THRESHOLD,
    store: str | os.PathLike[str] | None = None,
) -> ContentReturns:
    """Whether each step's content returns in ``analysis``' rollouts, stored and summed up.

    Findings stored in ``store`` under ``returns_key(analysis.key, ...)`` are read back; only
    rollouts without one are compared, and what is found is appended (one line).

    """
    similarity = similarity if similarity is not None else default_similarity()
    key = returns_key(analysis.key, similarity.name, threshold)
    stored, new = stored_or_found(
        analysis,
        store,
        key,
        (read_returns, append_returns),
        lambda missing: find_returns(trace, missing, similarity, threshold),
    )
    found = {**stored, **{(r.boundary, r.number): r for r in new}}
    counted = {(r.boundary, r.number) for r in analysis.rollouts}
    returns = tuple(r for k, r in sorted(found.items()) if k in counted)
    seed = int(analysis.key.get("seed", 0))
    steps = step_returns(analysis.values, analysis.rollouts, returns, seed=seed)
    return ContentReturns(similarity.name, threshold, returns, tuple(steps), len(new))


Finding = TypeVar("Finding", ContentReturn, ContentFound)


def stored_or_found(
    analysis: StepAnalysis,
    store: str | os.PathLike[str] | None,
    key: Mapping[str, Any],
    sidecar: tuple[
        Callable[[str | os.PathLike[str], str, Mapping[str, Any]], dict[tuple[int, int], Finding]],
        Callable[[str | os.PathLike[str], str, Mapping[str, Any], Sequence[Finding]], None],
    ],
    find: Callable[[list[Rollout]], list[Finding]],
) -> tuple[dict[tuple[int, int], Finding], list[Finding]]:
    """Per-rollout findings: those ``store`` holds under ``key``, and those found now.

    ``sidecar`` reads and appends the kind of line they are kept in; only the rollouts of
    ``analysis`` without a stored finding are given to ``find``, and what it finds is appended
    (one line). Without a store, every rollout is given to ``find``.
    """
    read, append = sidecar
    stored = {} if store is None else read(store, analysis.trace_id, key)
    missing = [r for r in analysis.rollouts if (r.boundary, r.number) not in stored]
    new = find(missing)
    if new and store is not None:
        append(store, analysis.trace_id, key, new)
    return stored, new
