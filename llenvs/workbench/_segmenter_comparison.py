r"""One text under several segmenters: their pieces, PRM scores, aligned cuts and agreement.

Example:
    >>> runs = compare_segmenters("2 + 2 = 4. So 4.\n\nDone.", "q", ["sentence", "line:\\n\\n"])
    >>> [(r.spec, r.count) for r in runs]
    [('sentence', 3), ('line:\\n\\n', 2)]
    >>> agreement_matrix("2 + 2 = 4. So 4.\n\nDone.", runs).round(2).values.tolist()
    [[1.0, 0.67], [0.67, 1.0]]

"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

from llenvs.analysis.instruments import MAX_SEGMENTERS
from llenvs.core.errors import LlenvsError
from llenvs.core.segmenters import BoundaryAgreement, segmenter_from_spec
from llenvs.rewards import PRM, ArithmeticPRM
from llenvs.workbench._whitespace import one_line

__all__ = [
    "SegmenterRun",
    "agreement_figure",
    "agreement_matrix",
    "aligned_table",
    "compare_segmenters",
]


@dataclass(frozen=True)
class SegmenterRun:
    """One segmenter's cut of the text and the PRM's score of each piece.

    Example:
        >>> SegmenterRun("line", ((0, 2), (2, 3)), (1.0, 0.5)).count
        2

    """

    spec: str
    """The segmenter's spec as typed."""
    spans: tuple[tuple[int, int], ...]
    """Its lossless spans of the text."""
    scores: tuple[float | None, ...]
    """The PRM's score of each span's text, in order (None: the PRM did not rate it)."""
    error: str | None = None
    """Why this spec could not cut the text (a bad spec); then it has no spans."""

    @property
    def count(self) -> int:
        """Number of segments.

        Example:
            >>> SegmenterRun("x", (), ()).count
            0

        """
        return len(self.spans)


def compare_segmenters(
    text: str, question: str, specs: Sequence[str], prm: PRM | None = None
) -> list[SegmenterRun]:
    """Cut ``text`` with each spec and score the pieces (``ArithmeticPRM`` by default).

    A bad spec gives a run of its own with the segmenter's error (``UnknownName``,
    ``SegmenterSpecError``; a catastrophic pattern's ``TimeoutError``) and no spans; the
    others are compared as usual.

    Example:
        >>> [(r.spec, r.count, r.error) for r in compare_segmenters("One. Two.", "q",
        ...                                                          ["sentence", "nope"])]
        ... # doctest: +ELLIPSIS
        [('sentence', 2, None), ('nope', 0, "unknown segmenter 'nope'...")]
        >>> compare_segmenters("x", "q", ["sentence"] * 5)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: compare 1 to 4 segmenters, got 5

    """
    if not 1 <= len(specs) <= MAX_SEGMENTERS:
        raise ValueError(f"compare 1 to {MAX_SEGMENTERS} segmenters, got {len(specs)}")
    scorer = ArithmeticPRM() if prm is None else prm
    runs = []
    for spec in specs:
        try:
            spans = tuple(segmenter_from_spec(spec).spans(text))
        except (LlenvsError, ValueError, TimeoutError) as error:
            runs.append(SegmenterRun(spec, (), (), error=str(error)))
            continue
        scores = scorer.score_steps(question, [text[a:b] for a, b in spans])
        runs.append(
            SegmenterRun(spec, spans, tuple(None if s is None else float(s) for s in scores))
        )
    return runs


def aligned_table(text: str, runs: Sequence[SegmenterRun]) -> pd.DataFrame:
    r"""The text cut at every segmenter's cuts, one row per piece, one column per segmenter.

    A segmenter's cell reads ``▶ k (score)`` on the row where its segment k starts and is
    empty where its segment goes on, so equal cuts line up on one row.

    Example:
        >>> runs = [SegmenterRun("a", ((0, 3), (3, 5)), (1.0, 0.5)),
        ...         SegmenterRun("b", ((0, 5),), (0.5,))]
        >>> aligned_table("ab cd", runs).values.tolist()
        [['ab·', '▶ 0 (1.00)', '▶ 0 (0.50)'], ['cd', '▶ 1 (0.50)', '']]

    """
    cuts = sorted({start for run in runs for start, _ in run.spans} | {len(text)})
    starts = [{start: number for number, (start, _) in enumerate(run.spans)} for run in runs]
    rows = []
    for begin, end in itertools.pairwise(cuts):
        piece = text[begin:end]
        stripped = piece.rstrip(" ")
        row = [one_line(stripped + "·" * (len(piece) - len(stripped)), 300)]
        for run, found in zip(runs, starts, strict=True):
            number = found.get(begin)
            row.append("" if number is None else f"▶ {number} ({_score(run.scores[number])})")
        rows.append(row)
    return pd.DataFrame(rows, columns=["text", *_names(runs)])


def agreement_matrix(text: str, runs: Sequence[SegmenterRun]) -> pd.DataFrame:
    """Pairwise boundary F1 of the segmenters (symmetric, 1.0 on the diagonal).

    Example:
        >>> runs = [SegmenterRun("a", ((0, 1), (1, 2)), (1, 1)), SegmenterRun("b", ((0, 2),), (1,))]
        >>> agreement_matrix("xy", runs).values.tolist()
        [[1.0, 0.0], [0.0, 1.0]]

    """
    names = _names(runs)
    values = [
        [BoundaryAgreement.of(text, a.spans, (s for s, _ in b.spans)).f1 for b in runs]
        for a in runs
    ]
    return pd.DataFrame(values, index=names, columns=names)


def agreement_figure(matrix: pd.DataFrame) -> go.Figure:
    """A heatmap of an agreement matrix, each cell labelled with its F1.

    Example:
        >>> m = pd.DataFrame([[1.0, 0.5], [0.5, 1.0]], index=["a", "b"], columns=["a", "b"])
        >>> agreement_figure(m).data[0].type
        'heatmap'

    """
    figure = go.Figure(
        go.Heatmap(
            z=matrix.values,
            x=list(matrix.columns),
            y=list(matrix.index),
            zmin=0,
            zmax=1,
            colorscale="Blues",
            text=[[f"{v:.2f}" for v in row] for row in matrix.values],
            texttemplate="%{text}",
            hovertemplate="%{y} vs %{x}: boundary F1 %{z:.3f}<extra></extra>",
        )
    )
    figure.update_layout(
        height=300, margin={"l": 10, "r": 10, "t": 30, "b": 10}, yaxis={"autorange": "reversed"}
    )
    return figure


def _names(runs: Sequence[SegmenterRun]) -> list[str]:
    """Column names: the specs, numbered when two are the same."""
    names: list[str] = []
    for number, run in enumerate(runs, start=1):
        names.append(run.spec if run.spec not in names else f"{run.spec} ({number})")
    return names


def _score(score: float | None) -> str:
    return "–" if score is None else f"{score:.2f}"
