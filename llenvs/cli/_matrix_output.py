"""``llenvs analyze FILE --trace N --matrix``: the step-to-step matrix, printed or as JSON.

The matrix (``llenvs.analysis.instruments.step_matrix``) of a trace's rollouts: cell (i, j) is
how much keeping step i changes how often step j's content comes in a rollout. With
``--budget 0`` it is read from the rollouts the sidecar holds (the set with the most
rollouts); else from the analysis just run, whose ``--budget`` rollouts go, round after round, to
the boundaries of the widest cells of the matrix so far (``matrix_schedule``: its
``MatrixSchedule``). Text: what it is made of, then the strongest cells
whose 95% interval excludes 0. ``--json``: one object, ``{"matrix": n lists of n numbers
(null where j <= i or a boundary has no rollouts), "low", "high" (the same shape: each cell's
interval), "similarity", "threshold", "trace_id", "steps"}``.

Example:
    >>> from llenvs.analysis.instruments import StepMatrix
    >>> matrix_json("t", StepMatrix(2, "lexical", 0.8, ()))["matrix"]
    [[None, None], [None, None]]

"""

from __future__ import annotations

import json
import os
from typing import Any

from llenvs.analysis import AnalysisParams, analysis_key, similarity_named, stored_step_analysis
from llenvs.analysis.instruments import (
    MatrixSchedule,
    StepMatrix,
    TextSimilarity,
    matrix_widths,
    step_matrix,
)
from llenvs.cli._stored_values import stored_analyses
from llenvs.traces.records import Trace

__all__ = [
    "matrix_json",
    "matrix_schedule",
    "print_matrix",
    "print_stored_matrix",
    "stored_matrix",
]

SHOWN = 10
"""How many of the strongest cells the text output lists."""


def stored_matrix(
    trace: Trace, store: str | os.PathLike[str], similarity: TextSimilarity | None
) -> StepMatrix | None:
    """The matrix of the stored rollouts of ``trace`` with the most rollouts; None: none stored.

    Published values carry no rollout texts, so only our own rollouts count.
    """
    ours = [analysis for _, analysis, extra in stored_analyses(trace, store) if "key" in extra]
    if not ours:
        return None
    analysis = max(ours, key=lambda each: len(each.rollouts))
    return step_matrix(trace, analysis, similarity=similarity, store=store)


def matrix_json(trace_id: str, matrix: StepMatrix) -> dict[str, Any]:
    """The JSON object ``--json`` prints (see the module)."""
    low: list[list[float | None]] = [[None] * matrix.steps for _ in range(matrix.steps)]
    high: list[list[float | None]] = [[None] * matrix.steps for _ in range(matrix.steps)]
    for cell in matrix.cells:
        interval = cell.interval
        low[cell.source][cell.target] = interval.low
        high[cell.source][cell.target] = interval.high
    return {
        "trace_id": trace_id,
        "steps": matrix.steps,
        "similarity": matrix.similarity,
        "threshold": matrix.threshold,
        "matrix": matrix.rows(),
        "low": low,
        "high": high,
    }


def print_matrix(trace_id: str, matrix: StepMatrix, *, as_json: bool) -> None:
    """Print the matrix: its JSON object, or its caption and strongest cells."""
    if as_json:
        print(json.dumps(matrix_json(trace_id, matrix), ensure_ascii=False, allow_nan=False))
        return
    print(matrix.caption())
    strongest = matrix.strongest(SHOWN)
    if not strongest:
        print("no cell's 95% interval excludes 0: too few rollouts, or no step leads to another")
    for cell in strongest:
        print(f"  {cell.describe()}")


def print_stored_matrix(
    trace: Trace,
    store: str | os.PathLike[str],
    similarity: TextSimilarity | None,
    *,
    as_json: bool,
) -> int:
    """Print the matrix of the stored rollouts (``stored_matrix``); 0, or 1 when none."""
    matrix = stored_matrix(trace, store, similarity)
    if matrix is None:
        print(
            f"no rollouts stored for trace {trace.trace_id} in {store}: run llenvs analyze "
            "with --budget N to sample some"
        )
        return 1
    print_matrix(trace.trace_id, matrix, as_json=as_json)
    return 0


def matrix_schedule(
    trace: Trace,
    model: str,
    params: AnalysisParams,
    store: str | os.PathLike[str],
    similarity: str | None,
) -> MatrixSchedule:
    """Rounds to the widest cells of the matrix of the rollouts stored so far (this run's too)."""
    key = analysis_key(model, params)
    named = similarity_named(similarity)

    def widths() -> dict[int, float]:
        analysis = stored_step_analysis(trace, store, key)
        return matrix_widths(step_matrix(trace, analysis, similarity=named, store=store))

    return MatrixSchedule(widths=widths)
