"""``llenvs analyze FILE --trace N --budget 0``: the step values stored for a trace, no model.

Every source the analysis sidecar holds for the trace is printed as the workbench's step-values
panel reads it (one ``StepAnalysis`` each): a study's published values (``PublishedValues``:
its tallies, with every published measure) and each set of our own rollouts (one per model and
sampling key). Each source prints the table ``llenvs analyze`` prints (values, importances, the
chance each step moved) and the steps that moved. With ``--json``, one JSON object per boundary
and source: ``{"boundary", "value", "low", "high", "rollouts", "source", "importance", "moved",
...}``. With ``--returns``, whether each resampled step's content came back in our rollouts
(``llenvs.analysis.instruments``, stored in the sidecar as found) is added to both.

Example:
    >>> from llenvs.analysis.sidecar._published_values import PublishedTally, PublishedValues
    >>> from llenvs.analysis.sidecar._analysis_sidecar import append_published
    >>> from llenvs.traces import TaskRecord, Trace
    >>> import tempfile, os
    >>> store = os.path.join(tempfile.mkdtemp(), "t.analysis.jsonl")
    >>> t = Trace(task=TaskRecord("e", "a", {}, 0, "q"), response="", segments=())
    >>> append_published(store, t.trace_id, PublishedValues(
    ...     "s", "S, imported", "m", (PublishedTally(0, 3, 4, inferred=True),),
    ...     {"kl": (0.5,)}, {}))
    >>> [row] = stored_value_rows(t, store)
    >>> row["value"], round(row["low"], 3), row["rollouts"], row["source"], row["kl"]
    (0.75, 0.301, 4, 'S, imported', 0.5)

"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any

from llenvs.analysis import (
    CHANCES_CHECKED,
    StepAnalysis,
    published_step_analysis,
    stored_step_analysis,
)
from llenvs.analysis.instruments import ContentReturns, TextSimilarity, content_returns
from llenvs.analysis.sidecar import read_published, stored_keys
from llenvs.analysis.statistics import MOVE_DELTA, BoundaryValue
from llenvs.cli._analysis_table import analysis_table
from llenvs.traces.records import Trace

__all__ = ["print_stored_values", "stored_analyses", "stored_value_rows"]


def stored_analyses(
    trace: Trace, store: str | os.PathLike[str], delta: float = MOVE_DELTA
) -> list[tuple[str, StepAnalysis, dict[str, Any]]]:
    """Every source of step values the sidecar holds for ``trace``, as the workbench reads it.

    ``(source, analysis, extra)``: published values first (``extra``: their measures by name,
    and which boundaries' trials were inferred), then our rollouts by key (``extra``: the key).
    Each analysis calls a step moved at ``delta`` (``StepAnalysis.delta``).
    """
    sources: list[tuple[str, StepAnalysis, dict[str, Any]]] = []
    for published in read_published(store, trace.trace_id):
        analysis = dataclasses.replace(published_step_analysis(trace, published), delta=delta)
        inferred = {
            value.boundary: tally.inferred
            for value, tally in zip(published.values(), published.tallies, strict=True)
        }
        extra = {"measures": published.measures, "inferred": inferred}
        sources.append((published.provenance, analysis, extra))
    for key in stored_keys(store, trace.trace_id):
        analysis = dataclasses.replace(stored_step_analysis(trace, store, key), delta=delta)
        sources.append((f"rollouts of {key.get('model', '?')}", analysis, {"key": key}))
    return sources


def _returns(
    trace: Trace,
    store: str | os.PathLike[str],
    analysis: StepAnalysis,
    extra: dict[str, Any],
    similarity: TextSimilarity | None,
) -> ContentReturns | None:
    """Whether the source's resampled content came back (our rollouts only; stored as found)."""
    if similarity is None or "key" not in extra:
        return None
    return content_returns(trace, analysis, similarity=similarity, store=store)


def stored_value_rows(
    trace: Trace,
    store: str | os.PathLike[str],
    delta: float = MOVE_DELTA,
    similarity: TextSimilarity | None = None,
) -> list[dict[str, Any]]:
    """One row per boundary and source: its value, the step's importance and chance of moving.

    As ``StepAnalysis`` gives them (``moved``: the chance of a move of at least ``delta``, which
    the row states as ``delta``); a published source adds its measures. With ``similarity``,
    a row of our rollouts whose step was compared adds whether its content came back
    (``content_returns``: ``returned``, ``compared``, ``returned_share``, ``similarity``,
    and ``importance_not_returned`` with its ``_low``/``_high`` when there is a value after it).
    """
    rows: list[dict[str, Any]] = []
    for source, analysis, extra in stored_analyses(trace, store, delta):
        returns = _returns(trace, store, analysis, extra, similarity)
        came_back = {} if returns is None else returns.by_step()
        importances = {step.step: step for step in analysis.importances}
        measures = extra.get("measures", {})
        for value in analysis.values:
            row: dict[str, Any] = {**_row(value), "source": source}
            if "key" in extra:
                row["key"] = extra["key"]
            elif value.boundary in extra["inferred"]:
                row["inferred"] = extra["inferred"][value.boundary]
            step = importances.get(value.boundary)
            if step is not None and step.importance is not None:
                row["importance"] = step.importance
                row["importance_low"] = step.interval.low
                row["importance_high"] = step.interval.high
            if value.boundary in analysis.moved:
                row["moved"] = analysis.moved[value.boundary]
                row["delta"] = analysis.delta
            for name, column in measures.items():
                if value.boundary < len(column):
                    row[name] = column[value.boundary]
            back = came_back.get(value.boundary)
            if returns is not None and back is not None:
                row |= {
                    "returned": back.returned,
                    "compared": back.rollouts,
                    "returned_share": back.share,
                    "similarity": returns.similarity,
                }
                if back.importance is not None:
                    row["importance_not_returned"] = back.importance
                    row["importance_not_returned_low"] = back.interval.low
                    row["importance_not_returned_high"] = back.interval.high
            rows.append(row)
    return rows


def print_stored_values(
    trace: Trace,
    store: str | os.PathLike[str],
    *,
    as_json: bool,
    delta: float = MOVE_DELTA,
    similarity: TextSimilarity | None = None,
) -> int:
    """Print every stored source; 0, or 1 when none.

    JSON lines (``stored_value_rows``), or per source the table ``llenvs analyze`` prints, the
    steps called moved by ``delta`` with the expected wrong calls, and the top steps; with
    ``similarity``, whether resampled content came back, in the rows and a line per source.
    """
    sources = stored_analyses(trace, store, delta)
    if not sources:
        print(
            f"no step values stored for trace {trace.trace_id} in {store}: run llenvs analyze "
            "with --budget N to sample some"
        )
        return 1
    if as_json:
        for row in stored_value_rows(trace, store, delta, similarity):
            print(json.dumps(row, ensure_ascii=False, allow_nan=False))
        return 0
    for number, (source, analysis, extra) in enumerate(sources):
        print(f"{'' if number == 0 else chr(10)}{source}:")
        returns = _returns(trace, store, analysis, extra, similarity)
        print(analysis_table(trace, analysis, returns))
        if returns is not None:
            print(returns.caption())
        print(f"{analysis.calls_summary()} ({CHANCES_CHECKED})")
        print(analysis.top_steps(3).headline())
        if trace.success is False:
            print(f"where it went wrong (first drop): {analysis.first_drop().reason}")
    return 0


def _row(value: BoundaryValue) -> dict[str, Any]:
    return {
        "boundary": value.boundary,
        "value": value.value,
        "low": value.interval.low,
        "high": value.interval.high,
        "rollouts": value.trials,
    }
