"""Which step led to which: the step-to-step matrix of a trace, from the rollouts it has.

A rollout from before step i keeps steps 0..i-1 and writes the rest itself. Cell ``(i, j)``,
for i < j, is how much keeping step i makes step j's content come later:

    M[i][j] = P(j's content appears in a rollout from before step i+1)
              - P(it appears in a rollout from before step i)

(Thought Anchors' counterfactual step-to-step matrix). Content is found as ``resilience``
finds a step's own content: the step's text against every run of as many consecutive sentences
of the rollout (``TextSimilarity``: all-MiniLM-L6-v2 where installed, else word overlap, named
as such), found where one run is at least ``threshold`` alike. A cell needs rollouts from both
of its boundaries (else None) and has Newcombe's 95% interval of the difference of the two
shares; it is a difference of co-occurrence under resampling, not a causal effect on the
answer, and as good as the similarity that finds the content.

``step_matrix`` builds the matrix of a ``StepAnalysis``' rollouts and keeps what it found per
rollout in the analysis sidecar (``content`` lines, under the rollouts' key with the similarity
and threshold), so a reopened trace reads it back and only new rollouts are compared.

Example:
    >>> from llenvs.analysis.sampling import Rollout
    >>> from llenvs.analysis.instruments._sentence_similarity import LexicalSimilarity
    >>> t = leg_counting_trace("Cows have 4 legs. Two cows. So 8 legs.")
    >>> [s.text for s in t.segments]
    ['Cows have 4 legs. ', 'Two cows. ', 'So 8 legs.']
    >>> rollouts = [Rollout(0, 0, 0, True, "8", 9, "Cows have 3 legs. Two cows. So 6 legs."),
    ...             Rollout(1, 0, 0, True, "8", 9, "Two cows. So 8 legs.")]
    >>> [f.steps for f in find_content(t, rollouts, LexicalSimilarity())]
    [(1,), (1, 2)]
    >>> matrix = build_matrix(3, rollouts, find_content(t, rollouts, LexicalSimilarity()))
    >>> matrix.rows()[0]
    [None, 0.0, 1.0]

"""

from __future__ import annotations

import dataclasses
import os
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from llenvs.analysis._step_analysis import StepAnalysis
from llenvs.analysis.instruments._resilience import (
    RETURN_THRESHOLD,
    sentence_runs,
    stored_or_found,
)
from llenvs.analysis.instruments._sentence_similarity import TextSimilarity, default_similarity
from llenvs.analysis.sampling import Rollout
from llenvs.analysis.sidecar import ContentFound, append_content, read_content, returns_key
from llenvs.analysis.statistics import Interval, newcombe_interval
from llenvs.core.segmenters import SentenceSegmenter
from llenvs.traces.records import Trace

__all__ = ["MatrixCell", "StepMatrix", "build_matrix", "find_content", "step_matrix"]

_SENTENCES = SentenceSegmenter()


@dataclass(frozen=True)
class MatrixCell:
    """One cell: how much keeping step ``source`` makes step ``target``'s content come later.

    Example:
        >>> MatrixCell(0, 2, (1, 4), (3, 4)).value
        0.5

    """

    source: int
    """Step i (the row)."""
    target: int
    """Step j > i (the column)."""
    before: tuple[int, int]
    """Rollouts from before step i that said j's content, and how many were compared."""
    after: tuple[int, int]
    """The same for rollouts from before step i + 1 (step i kept)."""

    @property
    def value(self) -> float:
        """``after`` share minus ``before`` share."""
        return self.after[0] / self.after[1] - self.before[0] / self.before[1]

    @property
    def interval(self) -> Interval:
        """Newcombe's 95% interval of ``value``."""
        return newcombe_interval(self.before, self.after)

    def describe(self) -> str:
        """``step 2 → step 5: +0.40 [0.10, 0.65] (3/10 → 7/10 rollouts)``."""
        low, high = self.interval.low, self.interval.high
        return (
            f"step {self.source} → step {self.target}: {self.value:+.2f} [{low:.2f}, {high:.2f}] "
            f"({self.before[0]}/{self.before[1]} → {self.after[0]}/{self.after[1]} rollouts)"
        )


@dataclass(frozen=True)
class StepMatrix:
    """The step-to-step matrix of one trace's rollouts (see the module).

    Example:
        >>> StepMatrix(2, "lexical", 0.8, ()).rows()
        [[None, None], [None, None]]

    """

    steps: int
    """The trace's steps (n: the matrix is n by n)."""
    similarity: str
    """The similarity that found the content (``all-MiniLM-L6-v2`` or ``lexical``)."""
    threshold: float
    """The similarity at which a step's content counts as found."""
    cells: tuple[MatrixCell, ...]
    """Every cell i < j whose two boundaries have compared rollouts, row by row."""
    compared_now: int = 0
    """How many rollouts were compared now rather than read back."""

    def rows(self) -> list[list[float | None]]:
        """The matrix: row i, column j; None where j <= i or a boundary has no rollouts."""
        grid: list[list[float | None]] = [[None] * self.steps for _ in range(self.steps)]
        for cell in self.cells:
            grid[cell.source][cell.target] = cell.value
        return grid

    def led_to(self, step: int, k: int = 3) -> list[MatrixCell]:
        """What step ``step`` led to: its row's ``k`` largest cells, largest first."""
        return sorted((c for c in self.cells if c.source == step), key=_strength)[:k]

    def led_from(self, step: int, k: int = 3) -> list[MatrixCell]:
        """What led to step ``step``: its column's ``k`` largest cells, largest first."""
        return sorted((c for c in self.cells if c.target == step), key=_strength)[:k]

    def strongest(self, k: int = 10) -> list[MatrixCell]:
        """The ``k`` largest cells of the whole matrix whose interval excludes 0."""
        sure = [c for c in self.cells if c.interval.low > 0 or c.interval.high < 0]
        return sorted(sure, key=lambda c: -abs(c.value))[:k]

    def caption(self) -> str:
        """One line: how many cells, from how many rollouts, found by which similarity."""
        how = "word overlap, lexical" if self.similarity == "lexical" else self.similarity
        return (
            f"Step-to-step matrix: {len(self.cells)} cells of {self.steps * (self.steps - 1) // 2} "
            f"with rollouts on both sides (content found at similarity ≥ {self.threshold:g}: "
            f"{how}); a cell is a change in how often a later step's content comes, not an "
            "effect on the answer"
        )


def _strength(cell: MatrixCell) -> tuple[float, int]:
    return (-cell.value, cell.target)


def find_content(
    trace: Trace,
    rollouts: Iterable[Rollout],
    similarity: TextSimilarity,
    threshold: float = RETURN_THRESHOLD,
) -> list[ContentFound]:
    """For each counted rollout, the steps at or after its boundary whose content it says.

    Failed rollouts and those from after the last step are left out. Each step is compared
    with the runs of as many sentences as it has, all in one ``similarity.table`` per run size.
    """
    texts = [segment.text for segment in trace.segments]
    usable = [r for r in rollouts if r.error is None and r.boundary < len(texts)]
    sizes = [max(1, len(_SENTENCES.segment(text))) for text in texts]
    sentences = [_SENTENCES.segment(r.text) for r in usable]
    best: dict[tuple[int, str], float] = {}
    for size in sorted(set(sizes)):
        steps = [j for j, each in enumerate(sizes) if each == size]
        runs = list(dict.fromkeys(run for each in sentences for run in sentence_runs(each, size)))
        table = similarity.table([texts[j] for j in steps], runs)
        for j, row in zip(steps, table, strict=True):
            best.update(((j, run), score) for run, score in zip(runs, row, strict=True))
    found = []
    for rollout, its_sentences in zip(usable, sentences, strict=True):
        runs_by_size = {size: sentence_runs(its_sentences, size) for size in set(sizes)}
        said = tuple(
            j
            for j in range(rollout.boundary, len(texts))
            if max((best[j, run] for run in runs_by_size[sizes[j]]), default=0.0) >= threshold
        )
        found.append(ContentFound(rollout.boundary, rollout.number, said))
    return found


def build_matrix(
    steps: int,
    rollouts: Sequence[Rollout],
    found: Iterable[ContentFound],
    similarity: str = "lexical",
    threshold: float = RETURN_THRESHOLD,
) -> StepMatrix:
    """The matrix of ``steps`` steps from what was found in ``rollouts`` (see the module)."""
    counted = {(r.boundary, r.number) for r in rollouts}
    compared: dict[int, int] = defaultdict(int)
    said: dict[tuple[int, int], int] = defaultdict(int)
    for finding in found:
        if (finding.boundary, finding.number) not in counted:
            continue
        compared[finding.boundary] += 1
        for step in finding.steps:
            said[finding.boundary, step] += 1
    cells = [
        MatrixCell(i, j, (said[i, j], compared[i]), (said[i + 1, j], compared[i + 1]))
        for i in range(steps)
        for j in range(i + 1, steps)
        if compared[i] and compared[i + 1]
    ]
    return StepMatrix(steps, similarity, threshold, tuple(cells))


def step_matrix(
    trace: Trace,
    analysis: StepAnalysis,
    *,
    similarity: TextSimilarity | None = None,
    threshold: float = RETURN_THRESHOLD,
    store: str | os.PathLike[str] | None = None,
) -> StepMatrix:
    """The step-to-step matrix of ``analysis``' rollouts (see the module).

    What each rollout says is kept in ``store`` as ``content_returns`` keeps its findings
    (``stored_or_found``), as ``content`` lines under the same key.
    """
    similarity = similarity if similarity is not None else default_similarity()
    key = returns_key(analysis.key, similarity.name, threshold)
    stored, new = stored_or_found(
        analysis,
        store,
        key,
        (read_content, append_content),
        lambda missing: find_content(trace, missing, similarity, threshold),
    )
    found = [*stored.values(), *new]
    matrix = build_matrix(len(trace.segments), analysis.rollouts, found, similarity.name, threshold)
    return dataclasses.replace(matrix, compared_now=len(new))
